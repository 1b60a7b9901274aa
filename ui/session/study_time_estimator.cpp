#include "ui/session/study_time_estimator.h"

#include <nlohmann/json.hpp>
#include <string>

#include "core/data/dataset.h"
#include "core/study/run/study_time.h"
#include "core/study/spec/study_spec.h"

namespace paritylab::ui {

struct StudyTimeEstimator::DataCache {
  std::string key;  // the dataset spec the data was loaded for
  std::shared_ptr<const data::DataSplit> data;
};

namespace {

// The dataset a study reads, as its spec writes it (the one serializer), and the block size the
// model sets.
std::string datasetKey(const study::StudySpec& spec) {
  const nlohmann::json full = study::studySpecToJson(spec);
  return full.value("dataset", nlohmann::json()).dump() + "|" +
         std::to_string(spec.dataset.blockSize);
}

// A few steps per setting: enough to see past the first step's allocations, few enough that a
// ResNet at a large batch is timed in seconds.
constexpr int kStepsTimed = 2;

}  // namespace

StudyTimeEstimator::StudyTimeEstimator(QObject* parent)
    : QObject(parent),
      generation_(std::make_shared<std::atomic<int>>(0)),
      data_(std::make_shared<DataCache>()),
      timing_([this](const Result* result, const QString& error) {
        if (!result) {  // not thrown by the timing (it catches what it throws): said all the same
          emit failed(error);
          return;
        }
        if (result->generation != generation_->load()) return;  // an older spec's
        if (!result->error.isEmpty())
          emit failed(result->error);
        else if (!result->words.isEmpty())
          emit estimated(result->words);
      }) {
  timer_.setSingleShot(true);
  timer_.setInterval(700);
  connect(&timer_, &QTimer::timeout, this, &StudyTimeEstimator::startTiming);
}

StudyTimeEstimator::~StudyTimeEstimator() {
  ++*generation_;  // a timing under way stops at its next setting
}

void StudyTimeEstimator::setSpec(const QString& specJson) {
  ++*generation_;
  spec_ = specJson;
  try {
    const study::StudySpec spec = study::parseStudySpec(spec_.toStdString(), "study");
    emit sized(QString::fromStdString(study::describeStudyTime(spec, {})));
  } catch (const std::exception& e) {
    emit failed(errorText(e));
    return;
  }
  timer_.start();
}

void StudyTimeEstimator::clear() {
  ++*generation_;
  timer_.stop();
  spec_.clear();
}

void StudyTimeEstimator::startTiming() {
  const int generation = generation_->load();
  timing_.start([text = spec_.toStdString(), generation, current = generation_, cache = data_] {
    Result result;
    result.generation = generation;
    const auto stale = [&] { return current->load() != generation; };
    if (stale()) return result;
    try {  // an error is an older spec's as much as an estimate is: it carries its generation
      const study::StudySpec spec = study::parseStudySpec(text, "study");
      const std::string key = datasetKey(spec);
      if (cache->key != key || !cache->data) {
        cache->data = std::make_shared<const data::DataSplit>(data::loadDataset(spec.dataset));
        cache->key = key;
      }
      const study::StudyTimeEstimate e =
          study::estimateStudyTime(spec, *cache->data, 0, kStepsTimed, stale);
      if (e.complete) result.words = QString::fromStdString(study::describeStudyTime(spec, e));
    } catch (const std::exception& e) {
      result.error = errorText(e);
    }
    return result;
  });
}

void StudyTimeEstimator::settle() {
  if (timer_.isActive()) {
    timer_.stop();
    startTiming();
  }
  timing_.settle();
}

}  // namespace paritylab::ui
