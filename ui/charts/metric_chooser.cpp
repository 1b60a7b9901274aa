#include "ui/charts/metric_chooser.h"

#include "ui/session/shown_study.h"

namespace paritylab::ui {

MetricChooser::MetricChooser(ShownStudy* study, QWidget* parent)
    : QComboBox(parent), shown_(study) {
  for (std::size_t i = 0; i < study::kComparedMetricNames.size(); ++i)
    addItem(QString::fromStdString(study::metricWords(study::ComparedMetric(i)).name), int(i));
  setToolTip(
      tr("What the backends are compared on: each run's final accuracy, test or validation loss "
         "(nats per example or token; lower is better) or perplexity"));
  follow();
  connect(this, &QComboBox::currentIndexChanged, this,
          [this] { shown_->setMetric(study::ComparedMetric(currentData().toInt())); });
  connect(shown_, &ShownStudy::metricChanged, this, &MetricChooser::follow);
}

void MetricChooser::follow() {
  const QSignalBlocker block(this);
  setCurrentIndex(findData(int(shown_->metric())));
}

}  // namespace paritylab::ui
