"""Frozen records returned by `EventBus.statistics()`."""

from __future__ import annotations

import msgspec

__all__ = ["BusStatistics", "SubscriberStatistics"]


class SubscriberStatistics(msgspec.Struct, frozen=True, kw_only=True):
    """What one subscriber did so far.

    Times are measured for worker subscribers always and for inline subscribers
    only while the bus's `timing` is on (timing costs more than a no-op handler);
    otherwise they are None.
    """

    name: str
    mode: str
    order: int
    event_types: tuple[str, ...]
    calls: int
    total_time_s: float | None
    max_time_s: float | None
    queue_depth: int
    """Events queued and not yet handled (worker subscribers; 0 for inline)."""
    drops: int
    """Events discarded by the `drop_oldest` or `latest` overflow policies."""
    errors: int
    last_error: str | None


class BusStatistics(msgspec.Struct, frozen=True, kw_only=True):
    """Per-event-type publish counts and per-subscriber statistics."""

    published: dict[str, int]
    """How often each event type was published while it had subscribers."""
    subscribers: tuple[SubscriberStatistics, ...]

    def format(self) -> str:
        """Return a plain-text table, one line per subscriber."""
        lines = [
            f"{'subscriber':<40} {'mode':<6} {'calls':>8} {'total s':>9} {'max ms':>8} {'queue':>5} {'drops':>5} {'errors':>6}"
        ]
        for s in self.subscribers:
            total = "-" if s.total_time_s is None else f"{s.total_time_s:.3f}"
            peak = "-" if s.max_time_s is None else f"{s.max_time_s * 1e3:.2f}"
            lines.append(
                f"{s.name[:40]:<40} {s.mode:<6} {s.calls:>8} {total:>9} {peak:>8} {s.queue_depth:>5} {s.drops:>5} {s.errors:>6}"
            )
            if s.last_error:
                lines.append(f"    last error: {s.last_error}")
        return "\n".join(lines)
