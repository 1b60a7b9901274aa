#pragma once
// Which backend (and seed) a run of a tracker's export holds: the rule given with
// import --backend-from (docs/import.md), one of
//   path:PATTERN  the run's path (a run folder, a file, or a run's name; tensorboard_run_rule.h),
//                 with an optional {seed}
//   column:NAME   the value of the column NAME in the run's rows (device, config.device,
//                 params.device, tags.device)
//   hparam:NAME   the hyperparameter NAME: a Lightning hparams.yaml key, a W&B config column,
//                 an MLflow params.NAME
// TensorBoard event files take the path: form only (tensorboard_run_rule.h).

#include <optional>
#include <string>

#include "core/study/files/tensorboard_run_rule.h"

namespace paritylab::study {

class RunBackendRule {
 public:
  enum class Kind { Path, Column, Hparam };

  // Throws input::InputError naming `option` and what is wrong (an unknown form, an empty or
  // over-long name, or what RunPathRule::parse refuses).
  static RunBackendRule parse(const std::string& text,
                              const std::string& option = "--backend-from");

  Kind kind() const { return kind_; }
  const std::string& name() const { return name_; }   // column: and hparam: forms
  const RunPathRule& path() const { return *path_; }  // path: form only
  bool hasSeed() const { return path_ && path_->hasSeed(); }
  const std::string& text() const { return text_; }

 private:
  Kind kind_ = Kind::Path;
  std::string name_, text_;
  std::optional<RunPathRule> path_;
};

}  // namespace paritylab::study
