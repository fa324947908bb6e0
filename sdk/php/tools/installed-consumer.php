<?php

// A merchant's app after `composer install` (sdk/php/run-tests.sh): only Composer's autoloader is
// registered, and every class of the installed package must load through it from vendor/.
declare(strict_types=1);

$app = $argv[1] ?? '';
require $app . '/vendor/autoload.php';

$installed = realpath($app . '/vendor/momo-payments/momo-payments/src');
if ($installed === false) {
    fwrite(STDERR, "installed-consumer: the package is not in vendor/\n");
    exit(1);
}
$files = new RecursiveIteratorIterator(new RecursiveDirectoryIterator($installed, FilesystemIterator::SKIP_DOTS));
$loaded = 0;
foreach ($files as $file) {
    if ($file->getExtension() !== 'php') {
        continue;
    }
    $relative = substr($file->getPathname(), strlen($installed) + 1, -strlen('.php'));
    $name = 'MomoPayments\\' . str_replace('/', '\\', $relative);
    if (!class_exists($name) && !interface_exists($name) && !trait_exists($name) && !enum_exists($name)) {
        fwrite(STDERR, "installed-consumer: {$name} does not load through Composer's autoloader\n");
        exit(1);
    }
    $from = (new ReflectionClass($name))->getFileName();
    if ($from === false || !str_starts_with($from, $installed)) {
        fwrite(STDERR, "installed-consumer: {$name} loaded from outside vendor/\n");
        exit(1);
    }
    $loaded++;
}
$client = new MomoPayments\Client(['apiKey' => 'k', 'apiClient' => 'c', 'baseUrl' => 'http://127.0.0.1:9']);
echo "installed-consumer: {$loaded} classes load from vendor/ through Composer; " . get_class($client) . " builds\n";
