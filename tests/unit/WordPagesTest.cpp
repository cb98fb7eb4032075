// WordPages: per-word (or per-thread) values in pages, with the pages found
// lately remembered in front of the map. A remembered page the map freed
// must never be found again.
#include "analysis/WordPages.h"

#include <gtest/gtest.h>

namespace predatar {
namespace {

using Pages = WordPages<int, 5>;

TEST(WordPages, FindsAValueByItsKeyAndItsPageByAnyKeyOfIt) {
  Pages pages;
  EXPECT_EQ(pages.find(70), nullptr);
  EXPECT_EQ(pages.findPage(70), nullptr);
  pages.at(70) = 7;
  ASSERT_NE(pages.find(70), nullptr);
  EXPECT_EQ(*pages.find(70), 7);
  const Pages::Page* page = pages.findPage(64);  // 64..95: one page
  ASSERT_NE(page, nullptr);
  EXPECT_EQ((*page)[70 % Pages::kWordsPerPage], 7);
  EXPECT_EQ(pages.findPage(96), nullptr);
}

// More pages than remembered slots, reached in turn: each still finds its own.
TEST(WordPages, ManyPagesReachedInTurnKeepTheirValues) {
  Pages pages;
  for (int round = 0; round < 2; ++round)
    for (uint64_t p = 0; p < 300; ++p) pages.at(p * Pages::kWordsPerPage + 1) += int(p);
  for (uint64_t p = 0; p < 300; ++p) EXPECT_EQ(*pages.find(p * Pages::kWordsPerPage + 1), int(2 * p));
}

TEST(WordPages, FreedPagesAreNotFoundAgain) {
  Pages pages;
  for (uint64_t p = 0; p < 4; ++p) pages.at(p * Pages::kWordsPerPage) = 1;
  pages.erase(Pages::kWordsPerPage, 2 * Pages::kWordsPerPage - 1, [](int) {}, false);
  EXPECT_EQ(pages.findPage(Pages::kWordsPerPage), nullptr);
  EXPECT_NE(pages.find(0), nullptr);

  *pages.find(2 * Pages::kWordsPerPage) = 0;  // page 2's words all empty: freed by the walk
  pages.forEachWord([](uint64_t, int&) {}, [](int v) { return v == 0; });
  EXPECT_EQ(pages.find(2 * Pages::kWordsPerPage), nullptr);
  EXPECT_NE(pages.find(3 * Pages::kWordsPerPage), nullptr);

  pages.clearKeepingRoom();
  EXPECT_EQ(pages.find(0), nullptr);
  EXPECT_EQ(pages.find(3 * Pages::kWordsPerPage), nullptr);
  EXPECT_EQ(pages.at(3 * Pages::kWordsPerPage), 0);  // made anew
}

}  // namespace
}  // namespace predatar
