<?php

declare(strict_types=1);

namespace MomoPayments;

use MomoPayments\Generated\Operations;
use MomoPayments\Generated\ResourceMap;
use MomoPayments\Http\CurlTransport;
use MomoPayments\Http\Psr18Transport;
use MomoPayments\Http\Requestor;
use MomoPayments\Http\Transport;

/**
 * The API client: credentials, mode and HTTP behaviour from one config; one resource per group of
 * operations ($client->payins->createDirect([...]), $client->transactions->autoPagingIterator()...).
 *
 * @property-read Resources\AccountsResource $accounts
 * @property-read Resources\EventsResource $events
 * @property-read Resources\PayinsResource $payins
 * @property-read Resources\PaymentLinksResource $paymentLinks
 * @property-read Resources\PayoutBatchesResource $payoutBatches
 * @property-read Resources\PayoutsResource $payouts
 * @property-read Resources\ProvidersResource $providers
 * @property-read Resources\EventsResource $realtime deprecated: use $events (goes in the next minor release)
 * @property-read Resources\RefundsResource $refunds
 * @property-read Resources\SandboxResource $sandbox
 * @property-read Resources\StatementsResource $statements
 * @property-read Resources\TransactionsResource $transactions
 * @property-read Resources\WebhookEndpointsResource $webhookEndpoints
 */
final class Client
{
    /**
     * The SDK's version: the API's major.minor (Operations::API_VERSION, info.version of the OpenAPI
     * document it is generated from) and a patch of its own for the SDK's fixes
     * (docs/decisions/sdks/sdk-version-api-major-minor-own-patch.md; npm run check:sdks checks it).
     */
    public const VERSION = '1.0.2';

    private readonly Requestor $requestor;
    private readonly bool $livemode;
    /** @var array<string, Resource> */
    private array $resources = [];

    /**
     * @param array{
     *   apiKey: string, apiClient: string, baseUrl: string, acceptLanguage?: ?string,
     *   timeout?: float|int, maxRetries?: int, transport?: Transport,
     *   httpClient?: object, requestFactory?: object, streamFactory?: object,
     *   sleep?: callable(float): void
     * } $config apiKey (mk_test_… or mk_live_…) and apiClient (sk_…) are the Basic credentials;
     *   httpClient + requestFactory + streamFactory: a PSR-18 client and its PSR-17 factories instead of curl.
     */
    public function __construct(array $config)
    {
        foreach (['apiKey', 'apiClient', 'baseUrl'] as $k) {
            if (!isset($config[$k]) || !is_string($config[$k]) || $config[$k] === '') {
                throw new \InvalidArgumentException("Client config needs '{$k}'");
            }
        }
        $timeout = (float) ($config['timeout'] ?? 30);
        $maxRetries = (int) ($config['maxRetries'] ?? 3);
        if ($timeout <= 0 || $maxRetries < 0) {
            throw new \InvalidArgumentException('timeout must be > 0 and maxRetries >= 0');
        }
        $transport = $config['transport'] ?? null;
        if ($transport === null && isset($config['httpClient'])) {
            $factory = $config['requestFactory'] ?? $config['httpClient'];
            $transport = new Psr18Transport($config['httpClient'], $factory, $config['streamFactory'] ?? $factory);
        }
        $this->livemode = str_starts_with($config['apiKey'], 'mk_live_');
        $this->requestor = new Requestor(
            rtrim($config['baseUrl'], '/'),
            $config['apiKey'],
            $config['apiClient'],
            $transport ?? new CurlTransport(),
            $config['acceptLanguage'] ?? null,
            $timeout,
            $maxRetries,
            sleep: $config['sleep'] ?? null,
        );
    }

    /** A client from MOMO_API_KEY, MOMO_API_CLIENT and MOMO_BASE_URL (and the given overrides). */
    public static function fromEnv(array $overrides = []): self
    {
        $env = static fn (string $k): ?string => ($v = getenv($k)) === false ? null : $v;
        return new self($overrides + array_filter([
            'apiKey' => $env('MOMO_API_KEY'),
            'apiClient' => $env('MOMO_API_CLIENT'),
            'baseUrl' => $env('MOMO_BASE_URL'),
        ], static fn ($v) => $v !== null));
    }

    /** Live mode (mk_live_ key) or test mode (mk_test_, the sandbox). */
    public function isLivemode(): bool
    {
        return $this->livemode;
    }

    public function __get(string $name): Resource
    {
        if (isset(ResourceMap::DEPRECATED[$name])) {
            // An old name kept for one minor release (sdk/php/CHANGELOG.md): it warns, then answers
            // the resource under its one name.
            $current = ResourceMap::DEPRECATED[$name];
            trigger_error(
                "MomoPayments\\Client::\${$name} is deprecated and goes in the next minor release: use \${$current}",
                E_USER_DEPRECATED,
            );
            $name = $current;
        }
        if (!isset(ResourceMap::ALL[$name])) {
            throw new \OutOfRangeException("No resource {$name} on the client");
        }
        $class = ResourceMap::ALL[$name];
        return $this->resources[$name] ??= new $class($this->requestor);
    }

    public function __isset(string $name): bool
    {
        return isset(ResourceMap::ALL[$name]) || isset(ResourceMap::DEPRECATED[$name]);
    }
}
