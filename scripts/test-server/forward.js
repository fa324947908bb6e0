#!/usr/bin/env node
// Minimal TCP forwarder: listen on 127.0.0.1:<port>, pipe every connection to 127.0.0.1:<upstream>.
// Lets @temporalio/testing "spawn" a test server that jest's global setup already started.
'use strict';
const net = require('node:net');
const [port, upstream] = process.argv.slice(2).map(Number);
net
  .createServer((client) => {
    const server = net.connect(upstream, '127.0.0.1');
    client.pipe(server).pipe(client);
    const close = () => {
      client.destroy();
      server.destroy();
    };
    client.on('error', close);
    server.on('error', close);
  })
  .listen(port, '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
