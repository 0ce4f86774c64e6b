"""Regression suite: each phrasing's expected statute must land in the top six."""

import time

import requests

EMBED_URL = "http://127.0.0.1:8080/v1/embeddings"
RETRY_STATUSES = (429, 500, 502, 503)
failed_calls = []


def embed(text: str, attempts: int = 3) -> list[float]:
    """Embed one question, retrying when the service is throttled."""
    for attempt in range(attempts):
        response = requests.post(EMBED_URL, json={"input": text}, timeout=30)
        try:
            response.raise_for_status()
        except requests.HTTPError:
            if response.status_code in RETRY_STATUSES and attempt < attempts - 1:
                time.sleep(2**attempt)
                continue
            raise
        return response.json()["data"][0]["embedding"]
    raise RuntimeError("unreachable")


def top_six(index, question: str) -> list[str]:
    """The ids of the six nearest statutes, or none when the search fails."""
    try:
        return index.search(embed(question), k=6)
    except Exception:
        return []


def top_six_counted(index, question: str) -> list[str]:
    """As top_six, but a failure is counted and stays in the denominator."""
    try:
        return index.search(embed(question), k=6)
    except requests.RequestException as error:
        failed_calls.append((question, str(error)))
        return []
