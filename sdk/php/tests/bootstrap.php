<?php

declare(strict_types=1);

error_reporting(E_ALL);
require __DIR__ . '/../autoload.php';

// The tests' own classes (MomoPayments\Tests\…), PSR-4 under tests/.
spl_autoload_register(static function (string $class): void {
    $prefix = 'MomoPayments\\Tests\\';
    if (str_starts_with($class, $prefix)) {
        $file = __DIR__ . '/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
        if (is_file($file)) {
            require $file;
        }
    }
});
