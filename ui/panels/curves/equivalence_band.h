#pragma once
// The Curves tab's equivalence band (core/study/analysis/curve_equivalence.h): is backend A's mean
// curve inside reference B's simultaneous seed band at every sampled step of the step loss, and
// at every epoch of the compared metric? Read off the GUI thread from the shown study's database
// whenever runs finish (its completed runs, as `paritylab-cli compare` reads them); gives the
// Curves tab B's band and the point where A's mean first leaves it, and the sentence that says so.
// Its chooser row: "[x] Equivalence: [A] in the seed band of [B]".

#include <QObject>
#include <QString>
#include <QTimer>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/study/analysis/curve_equivalence.h"
#include "ui/panels/curves/curve_data.h"

class QCheckBox;
class QComboBox;
class QWidget;

namespace paritylab::ui {

class ShownStudy;
template <typename T>
class BackgroundRead;

class EquivalenceBand : public QObject {
  Q_OBJECT

 public:
  explicit EquivalenceBand(ShownStudy* study, QObject* parent = nullptr);
  ~EquivalenceBand() override;

  QWidget* controls() const { return controls_; }
  bool isOn() const;
  void setOn(bool on);
  void setPair(const QString& a, const QString& b);  // A examined, B the reference (picked)
  // Where the pair comes from until one is picked (the window: the Statistics tab's pair, as
  // the Divergence tab's); followSuggestion() takes it again (the tab is shown). Without one,
  // or when it names a backend the runs do not have: defaultBackendPair.
  void setSuggestion(std::function<std::pair<QString, QString>()> suggestion) {
    suggestion_ = std::move(suggestion);
  }
  void followSuggestion();
  QString backendA() const;
  QString backendB() const;

  // B's band around its mean curve on `metric`'s axes (accuracy in percent), and where A's mean
  // first leaves it; none when the band is off, not read yet, or `metric` is neither the step
  // loss nor the compared metric's curve.
  struct Drawn {
    std::vector<XY> lower, upper;
    std::optional<XY> exit;  // on A's mean
    QString bandName;        // "cpu-fp32 seed band for tpu-bf16 (simultaneous 95%)"
    QString exitName;        // "tpu-bf16 leaves it at step 120"
  };
  std::optional<Drawn> bandOf(CurveMetric metric) const;
  // The sentence beneath the chart for `metric`: the verdict, why there is none, or on which
  // curves the band is drawn; "" while the band is off.
  QString words(CurveMetric metric) const;
  const std::optional<study::CurveEquivalence>& result() const { return result_; }

  void settle();  // the read in flight delivered (exports and tests)

 signals:
  void changed();  // a new answer or setting: the chart redraws

 private:
  struct Read {
    QString path;
    std::optional<study::CurveEquivalence> result;
    QString error;
  };
  void relist();
  bool adoptSuggestion();  // the suggested pair, unless one was picked; whether it changed
  void recompute();
  void take(const Read& read);

  ShownStudy* shown_;
  QWidget* controls_;
  QCheckBox* on_;
  QComboBox* aBox_;
  QComboBox* bBox_;
  bool userPicked_ = false;
  std::function<std::pair<QString, QString>()> suggestion_;
  QTimer soon_;  // one read for any number of runs finishing at once
  std::optional<study::CurveEquivalence> result_;
  QString error_;
  std::unique_ptr<BackgroundRead<Read>> reader_;
};

}  // namespace paritylab::ui
