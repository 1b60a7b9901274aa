#pragma once
// A line of grey text centred on a chart's plot area, saying what will appear there while the
// chart has no data ("Press Start: 15 runs ..."). Hidden as soon as the owner says there is data.

#include <QObject>
#include <QString>

class QChart;
class QGraphicsSimpleTextItem;

namespace paritylab::ui {

class ChartHint : public QObject {
  Q_OBJECT

 public:
  explicit ChartHint(QChart* chart);
  void setText(const QString& text);
  QString text() const;
  // Shown while `empty` is true and the text is not empty.
  void setChartEmpty(bool empty);
  bool isShown() const;

 private:
  void place();

  QChart* chart_;
  QGraphicsSimpleTextItem* item_;
  bool empty_ = true;
};

}  // namespace paritylab::ui
