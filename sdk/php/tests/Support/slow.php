<?php

// Answers after SLOW_SECONDS (default 2) and records each request: for the timeout test.
declare(strict_types=1);

file_put_contents((string) getenv('RECEIVER_FILE'), json_encode(['method' => $_SERVER['REQUEST_METHOD'], 'path' => $_SERVER['REQUEST_URI'], 'headers' => getallheaders(), 'body' => '']) . "\n", FILE_APPEND | LOCK_EX);
usleep((int) ((float) (getenv('SLOW_SECONDS') ?: 2) * 1_000_000));
header('Content-Type: application/json');
echo '{"data":[]}';
