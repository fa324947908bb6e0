<?php

declare(strict_types=1);

namespace MomoPayments\Exception;

/**
 * The API answered a problem (application/problem+json, RFC 9457). PHP's Exception already owns
 * `code` (an int), so the problem's stable code is `errorCode` (also getErrorCode()).
 */
class ApiException extends \RuntimeException implements MomoException
{
    /**
     * @param list<array{path: string, message: string}> $fieldErrors
     * @param array<string, mixed> $problem the problem document as received
     */
    public function __construct(
        string $message,
        public readonly int $status,
        public readonly ?string $type = null,
        public readonly ?string $errorCode = null,
        public readonly ?string $title = null,
        public readonly ?string $detail = null,
        public readonly array $fieldErrors = [],
        public readonly ?string $requestId = null,
        public readonly array $problem = [],
        public readonly ?int $retryAfter = null,
    ) {
        parent::__construct($message, $status);
    }

    /** Builds the exception of the status family from a problem answer. */
    public static function fromResponse(int $status, string $body, ?string $requestId, ?int $retryAfter = null): self
    {
        $problem = json_decode($body, true);
        $problem = is_array($problem) ? $problem : [];
        $str = static fn (string $k): ?string => isset($problem[$k]) && is_string($problem[$k]) ? $problem[$k] : null;
        $errors = [];
        foreach (is_array($problem['errors'] ?? null) ? $problem['errors'] : [] as $e) {
            if (is_array($e)) {
                $errors[] = ['path' => (string) ($e['path'] ?? ''), 'message' => (string) ($e['message'] ?? '')];
            }
        }
        $code = $str('code');
        $title = $str('title');
        $detail = $str('detail');
        // Built from the problem's code, title and detail only: never from the request's values.
        $message = sprintf(
            '%d %s%s%s',
            $status,
            $code ?? 'HTTP_ERROR',
            $title !== null ? ": {$title}" : '',
            $detail !== null && $detail !== $title ? " ({$detail})" : '',
        );
        if ($requestId !== null) {
            $message .= " [request {$requestId}]";
        }
        $class = match (true) {
            $status === 400, $status === 422 => InvalidRequestException::class,
            $status === 401 => AuthenticationException::class,
            $status === 403 => PermissionDeniedException::class,
            $status === 404 => NotFoundException::class,
            $status === 409 => ConflictException::class,
            $status === 429 => RateLimitException::class,
            $status === 503 => ServiceUnavailableException::class,
            $status >= 500 => ServerException::class,
            default => self::class,
        };
        return new $class($message, $status, $str('type'), $code, $title, $detail, $errors, $requestId, $problem, $retryAfter);
    }

    public function getStatus(): int
    {
        return $this->status;
    }

    public function getType(): ?string
    {
        return $this->type;
    }

    public function getErrorCode(): ?string
    {
        return $this->errorCode;
    }

    public function getDetail(): ?string
    {
        return $this->detail;
    }

    /** @return list<array{path: string, message: string}> */
    public function getFieldErrors(): array
    {
        return $this->fieldErrors;
    }

    public function getRequestId(): ?string
    {
        return $this->requestId;
    }
}
