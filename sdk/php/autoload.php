<?php

// PSR-4 autoloader for MomoPayments\ without Composer: require __DIR__ . '/autoload.php'.
declare(strict_types=1);

spl_autoload_register(static function (string $class): void {
    $prefix = 'MomoPayments\\';
    if (strncmp($class, $prefix, strlen($prefix)) !== 0) {
        return;
    }
    $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
    if (is_file($file)) {
        require $file;
    }
});
