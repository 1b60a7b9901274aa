#pragma once
// ResultsStore::transaction, shared by the store's source files. Internal to core/study.

#include "core/study/store/results_store.h"
#include "core/study/store/sqlite_statement.h"

namespace paritylab::study {

template <typename Body>
auto ResultsStore::transaction(Body&& body) {
  return inTransaction(db_, path_, std::forward<Body>(body));
}

}  // namespace paritylab::study
