"""The IE reader's key normalisation is cached for short names only (issue 16); same values."""

from __future__ import annotations

from cpsd_tasks import ie


def test_short_keys_cached_long_keys_not_kept():
    ie._key_cached.cache_clear()
    names = ["type", "Type", " 实体类型 ", "head_entity", "关系", "relation-type"]
    first = [ie._key(n) for n in names]
    misses = ie._key_cached.cache_info().misses
    assert [ie._key(n) for n in names * 3] == first * 3
    info = ie._key_cached.cache_info()
    assert info.misses == misses == len(names) and info.hits == 3 * len(names)
    long_name = "键" * (ie.KEY_CACHE_MAX_CHARS + 1)
    assert ie._key(long_name) == ie._key_uncached(long_name)
    assert ie._key_cached.cache_info().currsize == len(names)  # the long key is not kept


def test_cached_key_equals_uncached_on_odd_names():
    names = ["", " ", "TYPE", "ｔｙｐｅ", "entity_type", "entity-type", "Entity Type", "「类型」", "**类型**",
             "类型：", "\u3000类 型\u3000", "Straße", "ǅ", "x" * ie.KEY_CACHE_MAX_CHARS, "\ud800"]
    for name in names:
        ie._key_cached.cache_clear()
        assert ie._key(name) == ie._key(name) == ie._key_uncached(name)
