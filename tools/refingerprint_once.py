"""One-time (run once after the fingerprint began to leave quick() out; removed in the next
commit): give tables whose code did not change (under the new fingerprint rule, which
leaves quick() out) the new rule's fingerprint, proven from the code that made them.

For each stale-by-code table: the texts of its recorded modules at BASE (git show) must give
the recorded fingerprint under the old rule (proof they are the code that made it); then if
the new rule gives the same hash for those texts as for today's modules, the full-table code
is unchanged: the fingerprint (and modules) are rewritten to today's."""

import hashlib
import subprocess
import sys
from unittest import mock

from tcplab import cache, registry
from tcplab import fingerprint as fp

BASE = sys.argv[1]
ROOT = fp.PACKAGE.parents[1]


def text_at(module, rev):
    rel = fp._source(module).relative_to(ROOT)
    return subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{rev}:{rel}"], capture_output=True, text=True, check=True
    ).stdout


def combined(texts, old_rule):
    if old_rule:
        with mock.patch.object(fp, "is_quick_variant", lambda s: False):
            fp._text_hash.cache_clear()
            hashes = [fp._text_hash(t) for t in texts]
        fp._text_hash.cache_clear()
    else:
        hashes = [fp._text_hash(t) for t in texts]
    return hashlib.sha256("\n".join(sorted(hashes)).encode()).hexdigest()[:16]


for name in sorted(registry.REGISTRY):
    status = registry.status(name)
    if status.state != "stale" or not status.why.startswith("code"):
        continue
    meta = status.meta
    base_texts = [text_at(m, BASE) for m in meta["modules"]]
    if combined(base_texts, old_rule=True) != meta["fingerprint"]:
        print(f"{name}: the modules at {BASE} are not the code that made it: left stale")
        continue
    modules = registry.REGISTRY[name].modules()
    if sorted(modules) != sorted(meta["modules"]):
        print(f"{name}: imports other modules now: left stale")
        continue
    now = cache.fingerprint(modules)
    if combined(base_texts, old_rule=False) != now:
        print(f"{name}: its code changed: left stale")
        continue
    cache.amend(cache.Entry(name), {"fingerprint": now}, if_fingerprint=meta["fingerprint"])
    print(f"{name}: code unchanged but for quick(): fingerprint {meta['fingerprint']} -> {now}")
