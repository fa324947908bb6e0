<?php

// Prints the manifest (see manifest.sh) by reflection over src/Resources and src/Models.
declare(strict_types=1);

require __DIR__ . '/../autoload.php';

use MomoPayments\Attributes\Operation;
use MomoPayments\Attributes\Schema;
use MomoPayments\Client;
use MomoPayments\Generated\ResourceMap;

$operations = [];
foreach (ResourceMap::ALL as $property => $class) {
    foreach ((new ReflectionClass($class))->getMethods(ReflectionMethod::IS_PUBLIC) as $method) {
        foreach ($method->getAttributes(Operation::class) as $attribute) {
            $id = $attribute->newInstance()->operationId;
            if (isset($operations[$id])) {
                fwrite(STDERR, "manifest: {$id} is carried by two methods\n");
                exit(1);
            }
            $operations[$id] = "{$property}.{$method->getName()}";
        }
    }
}
ksort($operations);

$models = [];
foreach (glob(__DIR__ . '/../src/Models/*.php') ?: [] as $file) {
    $class = 'MomoPayments\\Models\\' . basename($file, '.php');
    $reflection = new ReflectionClass($class);
    foreach ($reflection->getAttributes(Schema::class) as $attribute) {
        $fields = [];
        foreach ($reflection->getProperties(ReflectionProperty::IS_PUBLIC) as $p) {
            if ($p->getDeclaringClass()->getName() === $class) {
                $fields[] = $p->getName();
            }
        }
        $models[$attribute->newInstance()->name] = $fields;
    }
}
ksort($models);

echo json_encode(
    [
        'sdk' => 'php',
        'version' => Client::VERSION,
        'operations' => $operations,
        'models' => $models,
        'resources' => array_keys(ResourceMap::ALL),
        'deprecatedAliases' => (object) ResourceMap::DEPRECATED,
    ],
    JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES,
), "\n";
