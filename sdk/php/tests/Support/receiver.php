<?php

// A webhook receiver for the tests, run as `php -S 127.0.0.1:PORT receiver.php` with
// RECEIVER_FILE set: every request is appended to that file as one JSON line (headers and raw body)
// and answered 204. Verification is the test's job, through the SDK, on what was received.
declare(strict_types=1);

$file = getenv('RECEIVER_FILE');
$headers = function_exists('getallheaders') ? getallheaders() : [];
$line = json_encode([
    'method' => $_SERVER['REQUEST_METHOD'] ?? '',
    'path' => $_SERVER['REQUEST_URI'] ?? '',
    'headers' => $headers,
    'body' => file_get_contents('php://input'),
], JSON_UNESCAPED_SLASHES);
if (is_string($file) && $file !== '') {
    file_put_contents($file, $line . "\n", FILE_APPEND | LOCK_EX);
}
http_response_code(204);
