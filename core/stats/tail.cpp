#include "core/stats/tail.h"

namespace paritylab::stats {

const char* tailName(Tail tail) {
  switch (tail) {
    case Tail::TwoSided:
      return "two-sided";
    case Tail::Less:
      return "less";
    case Tail::Greater:
      return "greater";
  }
  return "?";
}

const char* kindName(TTestKind kind) {
  return kind == TTestKind::Welch ? "Welch" : "Student";
}

}  // namespace paritylab::stats
