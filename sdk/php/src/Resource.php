<?php

declare(strict_types=1);

namespace MomoPayments;

use MomoPayments\Generated\Operations;
use MomoPayments\Http\Requestor;
use MomoPayments\Models\Statement;

/**
 * Base of the generated resources: every method names its operation, and the operation table
 * (Generated\Operations, from the OpenAPI document) gives the HTTP method, path and query names.
 */
abstract class Resource
{
    public function __construct(protected readonly Requestor $requestor)
    {
    }

    /**
     * @param array<string, string> $pathParams
     * @param array<string, mixed> $params body (POST) or query (GET)
     * @param array<string, mixed> $opts
     * @return array<string, mixed> the decoded JSON answer ([] for a 204)
     */
    protected function request(string $operationId, array $pathParams, array $params, array $opts): array
    {
        $response = $this->send($operationId, $pathParams, $params, $opts);
        if ($response->body === '') {
            return [];
        }
        $decoded = json_decode($response->body, true);
        if (!is_array($decoded)) {
            throw new Exception\ApiException(
                'The API answered a body that is not a JSON object',
                $response->status,
                requestId: $response->header('x-request-id'),
            );
        }
        return $decoded;
    }

    /**
     * @param array<string, string> $pathParams
     * @param array<string, mixed> $params
     * @param array<string, mixed> $opts
     */
    protected function requestRaw(string $operationId, array $pathParams, array $params, array $opts): string
    {
        return $this->send($operationId, $pathParams, $params, $opts)->body;
    }

    /**
     * @param array<string, string> $pathParams
     * @param array<string, mixed> $params
     * @param array<string, mixed> $opts
     */
    private function send(string $operationId, array $pathParams, array $params, array $opts): Http\Response
    {
        $op = Operations::ALL[$operationId];
        $path = preg_replace_callback(
            '/\{([^}]+)\}/',
            static function (array $m) use ($pathParams): string {
                if (!isset($pathParams[$m[1]]) || $pathParams[$m[1]] === '') {
                    throw new \InvalidArgumentException("Missing path parameter {$m[1]}");
                }
                return rawurlencode($pathParams[$m[1]]);
            },
            $op['path'],
        );
        $isQuery = !$op['body'] && $op['method'] !== 'POST';
        return $this->requestor->request(
            $op['method'],
            (string) $path,
            $isQuery ? $params : [],
            $op['body'] ? $params : null,
            $opts,
        );
    }

    /**
     * Walks a cursor-paginated list: yields each item, then asks for the next page while nextCursor is set.
     *
     * @param array<string, string> $pathParams
     * @param array<string, mixed> $params
     * @param array<string, mixed> $opts
     */
    protected function paginate(string $operationId, array $pathParams, array $params, array $opts): \Generator
    {
        // The item model: one class, or "type=Class,…" for a union chosen by each item's type.
        $item = Operations::ALL[$operationId]['item'];
        $byType = [];
        if ($item !== null && str_contains($item, '=')) {
            foreach (explode(',', $item) as $pair) {
                [$type, $class] = explode('=', $pair, 2);
                $byType[$type] = $class;
            }
        }
        while (true) {
            $page = $this->request($operationId, $pathParams, $params, $opts);
            foreach ($page['data'] ?? [] as $row) {
                $class = $byType === [] ? $item : ($byType[is_array($row) ? ($row['type'] ?? '') : ''] ?? null);
                yield $class !== null && is_array($row) ? ('MomoPayments\\Models\\' . $class)::fromArray($row) : $row;
            }
            $next = $page['nextCursor'] ?? null;
            if (!is_string($next) || $next === '') {
                return;
            }
            $params['cursor'] = $next;
        }
    }

    /** @return array<string, string> the expires and signature of a ready statement's download link */
    protected function signedDownloadQuery(Statement $statement): array
    {
        $url = is_array($statement->download) ? ($statement->download['url'] ?? null) : null;
        if (!is_string($url)) {
            throw new \InvalidArgumentException('This statement has no download link yet (status ' . ($statement->status ?? '?') . ')');
        }
        parse_str((string) parse_url($url, PHP_URL_QUERY), $query);
        $out = [];
        foreach (['expires', 'signature'] as $k) {
            if (isset($query[$k]) && is_string($query[$k])) {
                $out[$k] = $query[$k];
            }
        }
        return $out;
    }

    protected function streamUrl(string $path, string $token): string
    {
        $base = preg_replace('#^http#', 'ws', $this->requestor->baseUrl());
        return $base . $path . '?token=' . rawurlencode($token);
    }
}
