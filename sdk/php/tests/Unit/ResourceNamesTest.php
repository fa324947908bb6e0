<?php

declare(strict_types=1);

namespace MomoPayments\Tests\Unit;

use MomoPayments\Client;
use MomoPayments\Generated\ResourceMap;
use MomoPayments\Resources\EventsResource;
use PHPUnit\Framework\TestCase;

/**
 * The client's resources carry the one name each has in the three SDKs (sdk/codegen/resources.json);
 * an old name still answers, for one minor release, and says it is deprecated.
 */
final class ResourceNamesTest extends TestCase
{
    private function client(): Client
    {
        return new Client(['apiKey' => 'mk_test_names', 'apiClient' => 'sk_test_names', 'baseUrl' => 'http://127.0.0.1:9']);
    }

    public function testTheResourcesHaveTheNamesOfTheManifest(): void
    {
        $manifest = json_decode((string) file_get_contents(__DIR__ . '/../../../codegen/resources.json'), true, 512, JSON_THROW_ON_ERROR);
        $names = array_map(static fn (array $r): string => $r['name'], $manifest['resources']);
        $mapped = array_keys(ResourceMap::ALL);
        sort($names);
        sort($mapped);
        self::assertSame($names, $mapped);
        self::assertInstanceOf(EventsResource::class, $this->client()->events);
    }

    public function testTheOldRealtimeNameStillAnswersTheEventsResourceAndIsDeprecated(): void
    {
        $client = $this->client();
        $warnings = [];
        set_error_handler(static function (int $level, string $message) use (&$warnings): bool {
            $warnings[] = [$level, $message];
            return true;
        });
        try {
            $realtime = $client->realtime;
            self::assertTrue(isset($client->realtime));
        } finally {
            restore_error_handler();
        }
        self::assertSame($client->events, $realtime);
        self::assertSame(E_USER_DEPRECATED, $warnings[0][0] ?? null);
        self::assertStringContainsString('$realtime is deprecated', $warnings[0][1] ?? '');
        self::assertStringContainsString('use $events', $warnings[0][1] ?? '');
        self::assertSame('ws://127.0.0.1:9/v1/ws?token=wst_x', $realtime->eventStreamUrl('wst_x'));
    }
}
