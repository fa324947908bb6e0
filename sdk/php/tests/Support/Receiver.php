<?php

declare(strict_types=1);

namespace MomoPayments\Tests\Support;

/**
 * Starts receiver.php (or another script: the fault proxy stand-in) under PHP's built-in server on a
 * free loopback port, with a temp file for what it records.
 */
final class Receiver
{
    /** @var resource */
    private $process;
    public readonly string $url;
    private readonly string $file;

    /** @param array<string, string> $env */
    public function __construct(string $script = __DIR__ . '/receiver.php', array $env = [], string $path = '/webhooks')
    {
        $socket = stream_socket_server('tcp://127.0.0.1:0');
        if ($socket === false) {
            throw new \RuntimeException('no free port');
        }
        $name = (string) stream_socket_get_name($socket, false);
        fclose($socket);
        $port = (int) substr($name, strrpos($name, ':') + 1);
        $this->file = (string) tempnam(sys_get_temp_dir(), 'momo-php-receiver-');
        $this->url = "http://127.0.0.1:{$port}{$path}";
        $env = array_merge(getenv(), $env, ['RECEIVER_FILE' => $this->file, 'FAULT_STATE' => $this->file]);
        $process = proc_open(
            [PHP_BINARY, '-S', "127.0.0.1:{$port}", $script],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']],
            $pipes,
            null,
            $env,
        );
        if (!is_resource($process)) {
            throw new \RuntimeException('could not start the receiver');
        }
        $this->process = $process;
        $deadline = microtime(true) + 5;
        while (@fsockopen('127.0.0.1', $port) === false) {
            if (microtime(true) > $deadline) {
                throw new \RuntimeException('the receiver did not listen');
            }
            usleep(50_000);
        }
    }

    /** @return list<array{method: string, path: string, headers: array<string, string>, body: string}> */
    public function received(): array
    {
        $out = [];
        foreach (file($this->file, FILE_IGNORE_NEW_LINES | FILE_SKIP_EMPTY_LINES) ?: [] as $line) {
            $out[] = json_decode($line, true);
        }
        return $out;
    }

    public function stop(): void
    {
        proc_terminate($this->process);
        proc_close($this->process);
        @unlink($this->file);
    }
}
