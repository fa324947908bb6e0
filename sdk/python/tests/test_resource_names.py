"""The resources carry the one name each has in the three SDKs (sdk/codegen/resources.json, snake_cased
here); an old name still answers, for one minor release, with a DeprecationWarning."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from momo_payments import AsyncMomoPayments, MomoPayments

MANIFEST = Path(__file__).resolve().parents[2] / "codegen" / "resources.json"


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def client() -> MomoPayments:
    return MomoPayments("mk_test_names", "sk_test_names", base_url="http://127.0.0.1:9")


def test_the_resources_have_the_names_of_the_manifest() -> None:
    manifest = json.loads(MANIFEST.read_text())
    with client() as c:
        names = sorted(n for n, r in vars(c).items() if not n.startswith("_") and hasattr(r, "_t"))
    assert names == sorted(snake(r["name"]) for r in manifest["resources"])


def test_bulk_payouts_still_answers_payout_batches_and_warns() -> None:
    with client() as c:
        with pytest.warns(DeprecationWarning, match="bulk_payouts is deprecated.*use payout_batches"):
            old = c.bulk_payouts
        assert old is c.payout_batches


def test_the_async_client_keeps_the_alias_too() -> None:
    async def run() -> None:
        c = AsyncMomoPayments("mk_test_names", "sk_test_names", base_url="http://127.0.0.1:9")
        try:
            with pytest.warns(DeprecationWarning, match="use payout_batches"):
                assert c.bulk_payouts is c.payout_batches
        finally:
            await c.close()

    asyncio.run(run())
