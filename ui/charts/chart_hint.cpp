#include "ui/charts/chart_hint.h"

#include <QBrush>
#include <QChart>
#include <QFont>
#include <QGraphicsSimpleTextItem>

namespace paritylab::ui {

ChartHint::ChartHint(QChart* chart)
    : QObject(chart), chart_(chart), item_(new QGraphicsSimpleTextItem(chart)) {
  item_->setBrush(QColor(0x57, 0x60, 0x6a));
  QFont font = item_->font();
  font.setPointSizeF(font.pointSizeF() * 1.2);
  item_->setFont(font);
  item_->setZValue(900);
  item_->hide();
  connect(chart_, &QChart::plotAreaChanged, this, &ChartHint::place);
}

void ChartHint::setText(const QString& text) {
  item_->setText(text);
  setChartEmpty(empty_);
}

QString ChartHint::text() const {
  return item_->text();
}

void ChartHint::setChartEmpty(bool empty) {
  empty_ = empty;
  item_->setVisible(empty_ && !item_->text().isEmpty());
  place();
}

bool ChartHint::isShown() const {
  return item_->isVisible();
}

void ChartHint::place() {
  const QRectF area = chart_->plotArea();
  const QRectF text = item_->boundingRect();
  item_->setPos(area.center() - QPointF(text.width() / 2, text.height() / 2));
}

}  // namespace paritylab::ui
