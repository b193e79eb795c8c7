"""The IE reader's key normalisation is cached for short names only (issue 16); same values."""

from __future__ import annotations

from cpsd_tasks.reading import ie_names


def test_short_keys_cached_long_keys_not_kept():
    ie_names.cached_lookup_key.cache_clear()
    names = ["type", "Type", " 实体类型 ", "head_entity", "关系", "relation-type"]
    first = [ie_names.lookup_key(n) for n in names]
    misses = ie_names.cached_lookup_key.cache_info().misses
    assert [ie_names.lookup_key(n) for n in names * 3] == first * 3
    info = ie_names.cached_lookup_key.cache_info()
    assert info.misses == misses == len(names) and info.hits == 3 * len(names)
    long_name = "键" * (ie_names.KEY_CACHE_MAX_CHARS + 1)
    assert ie_names.lookup_key(long_name) == ie_names.uncached_lookup_key(long_name)
    assert ie_names.cached_lookup_key.cache_info().currsize == len(names)  # the long key is not kept


def test_cached_key_equals_uncached_on_odd_names():
    names = ["", " ", "TYPE", "ｔｙｐｅ", "entity_type", "entity-type", "Entity Type", "「类型」", "**类型**",
             "类型：", "\u3000类 型\u3000", "Straße", "ǅ", "x" * ie_names.KEY_CACHE_MAX_CHARS, "\ud800"]
    for name in names:
        ie_names.cached_lookup_key.cache_clear()
        assert ie_names.lookup_key(name) == ie_names.lookup_key(name) == ie_names.uncached_lookup_key(name)
