<?php

declare(strict_types=1);

namespace MomoPayments;

/**
 * Base of the generated models: typed readonly properties, plus the decoded JSON object as the API
 * sent it (raw(), or $model['field']), so a field newer than the SDK is still reachable.
 *
 * @implements \ArrayAccess<string, mixed>
 */
abstract class Model implements \ArrayAccess, \JsonSerializable
{
    /** @param array<string, mixed> $raw */
    public function __construct(private readonly array $raw)
    {
    }

    /**
     * One item of a union list (a transaction page: payins, payouts, refunds) as the model of its type;
     * an item of a type newer than the SDK stays an array.
     *
     * @param array<string, class-string<Model>> $byType
     */
    public static function byType(mixed $item, array $byType): mixed
    {
        if (!is_array($item)) {
            return $item;
        }
        $class = $byType[is_string($item['type'] ?? null) ? $item['type'] : ''] ?? null;
        return $class === null ? $item : $class::fromArray($item);
    }

    /** @return array<string, mixed> the object as the API answered it */
    public function raw(): array
    {
        return $this->raw;
    }

    /** @return array<string, mixed> */
    public function toArray(): array
    {
        return $this->raw;
    }

    public function jsonSerialize(): mixed
    {
        return (object) $this->raw;
    }

    public function offsetExists(mixed $offset): bool
    {
        return array_key_exists((string) $offset, $this->raw);
    }

    public function offsetGet(mixed $offset): mixed
    {
        return $this->raw[(string) $offset] ?? null;
    }

    public function offsetSet(mixed $offset, mixed $value): void
    {
        throw new \LogicException('Models are read-only');
    }

    public function offsetUnset(mixed $offset): void
    {
        throw new \LogicException('Models are read-only');
    }
}
