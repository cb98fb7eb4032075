// Shadow pages (analysis/ShadowPages.h) against a plain map of words to
// records, under random accesses, visits and erasures: whatever the pages
// compress (patterns, layers, tables) and expand again, every word reads
// back record for record, and the counts of words agree.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <random>
#include <vector>

#include "analysis/ShadowPages.h"

namespace predatar {
namespace {

// Records drawn so that pages fit patterns, tables or nothing: warps' accesses
// of consecutive words (a page's words from one thread on, or split between
// two blocks' warps), and single accesses of a few blocks and instructions.
class RecordSource {
 public:
  explicit RecordSource(uint64_t seed) : rng_(seed) {}
  PackedRecord next() {
    AccessType type = pick(5) ? AccessType::Read : AccessType::Write;
    return PackedRecord::pack(pick(3), 32 * pick(3) + pick(32), 1 + pick(2), type, pick(8) == 0, false,
                              Scope::Device, 0xf, Origin{100 + pick(4), 10 + pick(3), 0}, 1 + pick(2));
  }
  uint32_t pick(uint32_t n) { return std::uniform_int_distribution<uint32_t>(0, n - 1)(rng_); }

 private:
  std::mt19937_64 rng_;
};

void expectSame(ShadowPages& shadow, const std::map<uint64_t, std::vector<PackedRecord>>& expected,
                uint64_t keys, uint64_t seed) {
  uint64_t words = 0;
  for (uint64_t key = 0; key < keys; ++key) {
    auto it = expected.find(key);
    const ShadowPages::Records& r = shadow.at(key);
    std::vector<PackedRecord> got(r.begin(), r.end());
    ASSERT_EQ(got, it == expected.end() ? std::vector<PackedRecord>{} : it->second)
        << "seed " << seed << " word " << key;
    words += !got.empty();
  }
  ASSERT_EQ(shadow.words(), words) << "seed " << seed;
}

TEST(ShadowPagesProperty, EveryWordReadsBackWhateverThePagesCompress) {
  const uint64_t keys = 40 * ShadowPages::kWordsPerPage;
  uint64_t tables = 0, patterns = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    RecordSource source(seed);
    ShadowPages shadow(/*tablesBeyondFullPages=*/0);
    std::map<uint64_t, std::vector<PackedRecord>> expected;
    for (int step = 0; step < 2000; ++step) {
      uint32_t op = source.pick(100);
      auto add = [&](uint64_t key, const PackedRecord& record) {
        ShadowPages::Records& r = shadow.at(key);
        if (r.empty()) shadow.filled();
        r.push_back(record);
        expected[key].push_back(record);
      };
      if (op < 30) {  // a warp's access of a page, from `split` on by another block's warp
        uint64_t page = source.pick(uint32_t(keys / ShadowPages::kWordsPerPage));
        PackedRecord first = source.next(), second = source.next();
        uint32_t split = source.pick(2) ? ShadowPages::kWordsPerPage : source.pick(ShadowPages::kWordsPerPage);
        for (uint32_t w = 0; w < ShadowPages::kWordsPerPage; ++w) {
          PackedRecord record = w < split ? first : second;
          record.thread += w;
          add(page * ShadowPages::kWordsPerPage + w, record);
        }
      } else if (op < 85) {  // a single access
        add(source.pick(uint32_t(keys)), source.next());
      } else if (op < 90) {  // a word emptied
        uint64_t key = source.pick(uint32_t(keys));
        ShadowPages::Records& r = shadow.at(key);
        if (!r.empty()) shadow.emptied();
        r.clear();
        expected.erase(key);
      } else if (op < 94) {  // a launch forgotten (AccessHistory::beginLaunch)
        uint32_t launch = 1 + source.pick(2);
        auto gone = [&](const PackedRecord& x) { return x.launch == launch; };
        shadow.forEachWord([&](uint64_t, ShadowPages::Records& r) { r.erase(std::remove_if(r.begin(), r.end(), gone), r.end()); });
        for (auto it = expected.begin(); it != expected.end();) {
          std::erase_if(it->second, gone);
          it = it->second.empty() ? expected.erase(it) : std::next(it);
        }
      } else if (op < 97) {  // a range of pages erased (a block's shared memory)
        const uint64_t page = ShadowPages::kWordsPerPage;
        uint64_t first = source.pick(uint32_t(keys / page)) * page;
        uint64_t last = std::min(keys, first + page * (1 + source.pick(3))) - 1;
        uint64_t dropped = 0, expectedDropped = 0;
        shadow.erase(first, last, [&](size_t n) { dropped += n; });
        for (auto it = expected.lower_bound(first); it != expected.end() && it->first <= last;) {
          expectedDropped += it->second.size();
          it = expected.erase(it);
        }
        ASSERT_EQ(dropped, expectedDropped) << "seed " << seed << " step " << step;
      } else {
        shadow.settle();
        tables += shadow.tablePages();
        patterns += shadow.pages() - shadow.fullPages() - shadow.tablePages();
      }
    }
    expectSame(shadow, expected, keys, seed);
  }
  // The property says something only when pages were compressed both ways.
  EXPECT_GT(tables, 1000u);
  EXPECT_GT(patterns, 1000u);
}

}  // namespace
}  // namespace predatar
