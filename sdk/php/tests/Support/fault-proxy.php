<?php

// A stand-in for the harness's fault proxy (test/sdk/fault-proxy.ts), same protocol, used by the
// tests only when MOMO_FAULT_URL is not given: `php -S 127.0.0.1:PORT fault-proxy.php` with
// FAULT_TARGET (the API's base URL) and FAULT_STATE (a file holding the armed faults and the log).
// POST /__faults {status, retryAfter, times, forward} arms; GET/DELETE /__faults/log read/clear the log.
declare(strict_types=1);

$target = rtrim((string) getenv('FAULT_TARGET'), '/');
$stateFile = (string) getenv('FAULT_STATE');
$load = static function () use ($stateFile): array {
    $s = is_file($stateFile) ? json_decode((string) file_get_contents($stateFile), true) : null;
    return is_array($s) ? $s : ['fault' => null, 'log' => []];
};
$save = static fn (array $s) => file_put_contents($stateFile, json_encode($s), LOCK_EX);
$json = static function (int $status, mixed $body, array $headers = []): void {
    http_response_code($status);
    header('Content-Type: ' . ($headers['Content-Type'] ?? 'application/json'));
    foreach ($headers as $k => $v) {
        header("{$k}: {$v}");
    }
    echo json_encode($body);
};

$method = $_SERVER['REQUEST_METHOD'];
$uri = $_SERVER['REQUEST_URI'];
$path = (string) parse_url($uri, PHP_URL_PATH);
$body = (string) file_get_contents('php://input');
$state = $load();

if ($path === '/__faults' && $method === 'POST') {
    $state['fault'] = json_decode($body, true);
    $save($state);
    $json(200, ['armed' => true]);
    return;
}
if ($path === '/__faults/log') {
    if ($method === 'DELETE') {
        $state['log'] = [];
        $save($state);
        http_response_code(204);
        return;
    }
    $json(200, $state['log']);
    return;
}

$headers = getallheaders();
$key = null;
foreach ($headers as $k => $v) {
    if (strtolower($k) === 'x-idempotency-key') {
        $key = $v;
    }
}
$forward = static function () use ($target, $uri, $method, $headers, $body): array {
    $ch = curl_init($target . $uri);
    $out = [];
    foreach ($headers as $k => $v) {
        if (!in_array(strtolower($k), ['host', 'content-length', 'connection'], true)) {
            $out[] = "{$k}: {$v}";
        }
    }
    $received = [];
    curl_setopt_array($ch, [
        CURLOPT_CUSTOMREQUEST => $method,
        CURLOPT_HTTPHEADER => $out,
        CURLOPT_RETURNTRANSFER => true,
        CURLOPT_TIMEOUT => 30,
        CURLOPT_HEADERFUNCTION => static function ($ch, string $line) use (&$received): int {
            $p = explode(':', $line, 2);
            if (count($p) === 2) {
                $received[trim($p[0])] = trim($p[1]);
            }
            return strlen($line);
        },
    ]);
    if ($body !== '') {
        curl_setopt($ch, CURLOPT_POSTFIELDS, $body);
    }
    $answer = (string) curl_exec($ch);
    return [(int) curl_getinfo($ch, CURLINFO_RESPONSE_CODE), $received, $answer];
};

$fault = $state['fault'];
if (str_starts_with($path, '/v1/') && is_array($fault) && ($fault['times'] ?? 0) > 0) {
    $state['fault']['times']--;
    $state['log'][] = ['method' => $method, 'path' => $path, 'idempotencyKey' => $key, 'status' => $fault['status'], 'injected' => true];
    $save($state);
    if (!empty($fault['forward'])) {
        $forward();
    }
    // The codes the harness's proxy sends (test/sdk/fault-proxy.ts): a 409 is the API's REQUEST_IN_PROGRESS.
    $code = [429 => 'RATE_LIMITED', 503 => 'SERVICE_UNAVAILABLE', 409 => 'REQUEST_IN_PROGRESS'][(int) $fault['status']] ?? 'INJECTED';
    $json((int) $fault['status'], ['type' => "/docs/errors#{$code}", 'title' => 'Injected fault', 'status' => $fault['status'], 'code' => $code], [
        'Content-Type' => 'application/problem+json',
        'Retry-After' => (string) ($fault['retryAfter'] ?? 1),
    ]);
    return;
}
[$status, $answerHeaders, $answer] = $forward();
$state = $load();
$state['log'][] = ['method' => $method, 'path' => $path, 'idempotencyKey' => $key, 'status' => $status, 'injected' => false];
$save($state);
http_response_code($status);
foreach ($answerHeaders as $k => $v) {
    if (!in_array(strtolower($k), ['transfer-encoding', 'connection', 'content-length', 'keep-alive'], true)) {
        header("{$k}: {$v}");
    }
}
echo $answer;
