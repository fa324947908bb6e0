"""A merchant's code as mypy --strict sees it through the installed wheel (sdk/python/run-tests.sh):
it type-checks only if the wheel ships py.typed and the public names keep their types. Never run."""

from __future__ import annotations

from momo_payments import AnyEvent, MomoPayments, models, verify_webhook


def collect(client: MomoPayments, reference: str) -> str:
    record: models.TransactionRecord = client.payins.create_direct(
        {
            "reference": reference,
            "amount": 1000,
            "currency": "XOF",
            "customer": {"phoneNumber": "+2250700000001", "name": "Awa"},
        }
    )
    return record.status


def receive(body: bytes, headers: dict[str, str], secret: str) -> str:
    event: AnyEvent = verify_webhook(body, headers, secret)
    return event.type


def orders_transactions(client: MomoPayments, order_id: str) -> int:
    page = client.transactions.list(metadata={"orderId": order_id}, type="payin")
    return len(page.data)


def delivered(result: models.TestWebhookResult) -> bool:
    status: int | None = result.statusCode
    return status == 200
