#pragma once
// The metric the shown study's backends are compared on, as a chooser: accuracy, test loss,
// validation loss or perplexity. Every chooser shows and sets the one ShownStudy::metric(), so the
// Statistics and Distributions tabs never speak of different metrics.

#include <QComboBox>

namespace paritylab::ui {

class ShownStudy;

class MetricChooser : public QComboBox {
  Q_OBJECT

 public:
  explicit MetricChooser(ShownStudy* study, QWidget* parent = nullptr);

 private:
  void follow();  // the study's metric changed elsewhere

  ShownStudy* shown_;
};

}  // namespace paritylab::ui
