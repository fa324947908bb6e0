"""Every flow of the API through the sync client, against the running stack (sandbox merchant)."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import pytest

from momo_payments import (
    BadRequestError,
    ConflictError,
    MomoApiError,
    MomoPayments,
    NotFoundError,
    ServiceUnavailableError,
    models,
)

from .conftest import CUSTOMER_CI, PAYIN_ACTION, Receiver, direct_payin, reference, wait_until

FINAL_PAYIN = {"success", "failed", "expired"}


def test_direct_payin_completes_and_its_webhook_is_verified(
    client: MomoPayments, receiver: tuple[Receiver, models.WebhookEndpointWithSecret]
) -> None:
    hooks, _ = receiver
    ref = reference()
    payin = client.payins.create_direct(direct_payin(ref))
    assert isinstance(payin, models.TransactionRecord)
    assert payin.reference == ref and payin.type == "payin"
    done = wait_until(lambda: client.payins.get(ref), lambda p: p.status in FINAL_PAYIN)
    assert done.status == "success"
    event = hooks.wait_for(lambda e: e.type == "payin.completed" and e.data.reference == ref)
    assert isinstance(event, models.PayinCompletedEvent)
    assert event.data.id == payin.id
    assert hooks.rejected == 0


def test_the_same_idempotency_key_answers_the_same_payin(client: MomoPayments) -> None:
    key, ref = str(uuid.uuid4()), reference()
    first = client.payins.create_direct(direct_payin(ref), idempotency_key=key)
    second = client.payins.create_direct(direct_payin(ref), idempotency_key=key)
    assert first.id == second.id


def test_session_payin(client: MomoPayments) -> None:
    ref = reference("sess")
    session = client.payins.create_session(
        models.PayinSessionRequest(
            reference=ref, amount=2500, msisdn=CUSTOMER_CI, country="CI", action=PAYIN_ACTION  # type: ignore[arg-type]
        )
    )
    assert session.reference == ref
    assert session.paymentUrl
    assert client.payins.get(ref).id == session.id


def test_payouts_in_every_shape_recipient_check_and_cancel(client: MomoPayments) -> None:
    check = client.providers.check_recipient(msisdn=CUSTOMER_CI, country="CI")
    assert check.checked and check.active and check.holderName
    inactive = client.providers.check_recipient(msisdn="+2250500009911", country="CI")
    assert inactive.active is False
    predicted = client.providers.predict(msisdn=CUSTOMER_CI)
    assert predicted.provider

    direct_ref = reference("dpo")
    direct = client.payouts.create_direct(
        {"reference": direct_ref, "payout": {"amount": 1000, "msisdn": CUSTOMER_CI, "provider": "MTN", "country": "CI"}}
    )
    assert client.payouts.get_direct(direct_ref).id == direct.id

    std_ref = reference("spo")
    standard = client.payouts.create(
        {"reference": std_ref, "amount": 1000, "msisdn": CUSTOMER_CI, "country": "CI", "customerName": "Test"}
    )
    account = next(a for a in client.accounts.list().data if a.currency == "XOF")
    acc_ref = reference("apo")
    from_account = client.payouts.create(
        models.AccountPayoutRequest(
            reference=acc_ref, accountId=account.id, amount=1000, msisdn=CUSTOMER_CI, country="CI", customerName="Test"
        )
    )
    assert client.payouts.get(std_ref).root.reference == standard.root.reference
    assert client.payouts.get(acc_ref).root.reference == from_account.root.reference

    # A payout is cancellable only while not sent: a pending one (held, or not at the operator yet)
    # is reversed; one with the operator answers 409 PAYOUT_NOT_CANCELLABLE. Either proves the call.
    pending_ref = reference("cpo")
    client.payouts.create_direct(
        {
            "reference": pending_ref,
            "sandboxScenario": "pending",
            "payout": {"amount": 1000, "msisdn": CUSTOMER_CI, "provider": "MTN", "country": "CI"},
        }
    )
    try:
        cancelled = client.payouts.cancel_direct(pending_ref)
        assert cancelled.status == "reversed"
    except ConflictError as exc:
        assert exc.code == "PAYOUT_NOT_CANCELLABLE"
        settled = client.sandbox.settle_payout(pending_ref, {"outcome": "completed"})
        assert settled.root.reference
    except ServiceUnavailableError as exc:
        # The payout's workflow could not decide in 10 s (a busy worker), after the SDK's retries.
        assert exc.code == "DECISION_PENDING"
    with pytest.raises(NotFoundError):
        client.payouts.cancel(reference("nope"))


def test_refund_of_a_completed_payin_settled_by_the_sandbox_helper(client: MomoPayments) -> None:
    ref = reference("rf")
    client.payins.create_direct(direct_payin(ref))
    wait_until(lambda: client.payins.get(ref), lambda p: p.status in FINAL_PAYIN)
    refund = client.refunds.create(
        ref,
        {"reason": "returned", "externalReference": reference("ext"), "amount": 1000, "sandboxScenario": "pending"},
    )
    assert refund.originalReference == ref and refund.reference.startswith("rf_")
    settled = client.sandbox.settle_refund(refund.reference, {"outcome": "completed"})
    assert settled.reference == refund.reference
    done = wait_until(lambda: client.refunds.get(refund.reference), lambda r: r.status in {"completed", "failed"})
    assert done.status == "completed"


def test_sandbox_helpers_fail_a_pending_payin_then_find_its_funds(client: MomoPayments) -> None:
    ref = reference("sbx")
    client.payins.create_direct(direct_payin(ref, scenario="pending"))
    failed = client.sandbox.settle_payin(ref, {"outcome": "failed", "failureCode": "OPERATOR_TIMEOUT"})
    assert failed.reference == ref
    collected = client.sandbox.payin_collected(ref, {})
    assert collected.reference == ref


def test_transactions_auto_pagination(client: MomoPayments) -> None:
    for _ in range(3):
        client.payins.create_direct(direct_payin(reference("page")))
    first = client.transactions.list(limit=2)
    assert len(first.data) == 2 and first.nextCursor
    seen = []
    for tx in client.transactions.iter(limit=2):
        seen.append(tx.reference)
        if len(seen) == 7:
            break
    assert len(seen) == 7 and len(set(seen)) == 7  # crossed at least three pages, no repeats
    assert seen[:2] == [t.reference for t in first.data]


def test_transactions_filtered_by_metadata(client: MomoPayments) -> None:
    tag = uuid.uuid4().hex[:12]
    ref = reference("meta")
    client.payins.create_direct({**direct_payin(ref), "metadata": {"orderId": tag, "channel": "web"}})
    client.payins.create_direct({**direct_payin(reference("meta")), "metadata": {"orderId": "other"}})
    page = client.transactions.list(metadata={"orderId": tag, "channel": "web"}, type="payin")
    assert [t.reference for t in page.data] == [ref]


def test_accounts_entries_and_a_statement_downloaded(client: MomoPayments) -> None:
    accounts = client.accounts.list().data
    assert {a.currency for a in accounts} >= {"XOF", "XAF"}
    xof = next(a for a in accounts if a.currency == "XOF")
    assert client.accounts.get(xof.id).id == xof.id
    entries = client.accounts.list_entries(xof.id, limit=2)
    assert entries.data
    assert len(list(client.accounts.iter_entries(xof.id, limit=50))) >= len(entries.data)

    now = datetime.now(timezone.utc)
    statement = client.statements.create(
        {
            "accountId": xof.id,
            "from": (now - timedelta(days=1)).isoformat().replace("+00:00", "Z"),
            "to": (now + timedelta(minutes=1)).isoformat().replace("+00:00", "Z"),
            "format": "csv",
        }
    )
    ready = wait_until(lambda: client.statements.get(statement.id), lambda s: s.status != "pending", timeout=30)
    assert ready.status == "ready" and ready.download
    csv = client.statements.download(ready)
    assert csv.count(b"\n") >= 1


def test_events_deliveries_redelivery_replay_and_endpoint_management(
    client: MomoPayments, receiver: tuple[Receiver, models.WebhookEndpointWithSecret]
) -> None:
    hooks, endpoint = receiver
    ref = reference("evt")
    client.payins.create_direct(direct_payin(ref))
    delivered = hooks.wait_for(lambda e: e.type == "payin.completed" and e.data.reference == ref)

    listed = client.events.list(reference=ref)
    assert delivered.id in [e.id for e in listed.data]
    assert client.events.get(delivered.id).id == delivered.id
    assert any(e.id == delivered.id for e in client.events.iter(reference=ref))

    deliveries = wait_until(
        lambda: client.webhook_endpoints.list_deliveries(endpoint.id, event_id=delivered.id),
        lambda page: any(d.succeeded for d in page.data),
    )
    assert deliveries.data[0].eventId == delivered.id

    redelivery = client.events.redeliver(delivered.id, {"endpointId": endpoint.id})
    assert redelivery.eventId == delivered.id and redelivery.deliveries
    now = datetime.now(timezone.utc)
    replay = client.webhook_endpoints.replay(
        endpoint.id,
        {
            "from": (now - timedelta(minutes=5)).isoformat().replace("+00:00", "Z"),
            "to": now.isoformat().replace("+00:00", "Z"),
            "onlyFailed": False,
            "dryRun": True,
        },
    )
    assert replay.dryRun and replay.count >= 1

    assert endpoint.id in [e.id for e in client.webhook_endpoints.list().data]
    assert client.webhook_endpoints.get(endpoint.id).url == endpoint.url
    test = client.webhook_endpoints.send_test(endpoint.id, {"type": "payin.completed"})
    assert test.succeeded, test.error
    assert client.webhook_endpoints.enable(endpoint.id).status == "enabled"


def test_secret_rotation_verifies_with_both_secrets(client: MomoPayments) -> None:
    from momo_payments import Webhook

    hooks = Receiver()
    endpoint = client.webhook_endpoints.create({"url": hooks.url, "eventTypes": ["payin.completed"]})
    try:
        rotated = client.webhook_endpoints.rotate_secret(endpoint.id, {"overlapSeconds": 600})
        assert rotated.secret != endpoint.secret
        # During the overlap each delivery carries one signature per secret: the receiver knows both.
        hooks.webhook = Webhook([rotated.secret, endpoint.secret])
        result = client.webhook_endpoints.send_test(endpoint.id, {})
        assert result.succeeded
        ref = reference("rot")
        client.payins.create_direct(direct_payin(ref))
        event = hooks.wait_for(lambda e: e.type == "payin.completed" and e.data.reference == ref)
        assert event.data.reference == ref
    finally:
        client.webhook_endpoints.delete(endpoint.id)
        hooks.close()
    with pytest.raises(NotFoundError):
        client.webhook_endpoints.get(endpoint.id)


def test_providers(client: MomoPayments) -> None:
    providers = client.providers.list(country="CI").providers
    assert {p.code for p in providers} >= {"MTN", "ORANGE"}


def test_problems_are_typed_and_localized(client: MomoPayments) -> None:
    with pytest.raises(BadRequestError) as fr:
        client.payins.create_direct({"reference": reference()}, accept_language="fr")
    err = fr.value
    assert err.status == 400 and err.code == "VALIDATION_ERROR"
    assert err.type and err.type.endswith("#VALIDATION_ERROR")
    assert err.request_id
    assert {f.path for f in err.field_errors} >= {"payin", "action"}
    assert "champs" in (err.detail or "")
    with pytest.raises(MomoApiError) as en:
        client.payins.create_direct({"reference": reference()}, accept_language="en")
    assert "fields" in (en.value.detail or "")
    with pytest.raises(NotFoundError) as missing:
        client.payins.get(reference("missing"))
    assert missing.value.code and missing.value.status == 404



def test_bulk_payout(client: MomoPayments) -> None:
    batch = client.payout_batches.create(
        {
            "items": [
                {"reference": reference("b1"), "amount": 1000, "msisdn": CUSTOMER_CI, "country": "CI"},
                {"reference": reference("b2"), "amount": 1500, "msisdn": CUSTOMER_CI, "country": "CI"},
            ]
        }
    )
    assert len(batch.items) == 2
    done = wait_until(lambda: client.payout_batches.get(batch.id), lambda b: b.status == "completed", timeout=40)
    assert done.summary
