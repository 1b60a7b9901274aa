#include "ui/charts/chart_export.h"

#include <QBuffer>
#include <QChart>
#include <QChartView>
#include <QCoreApplication>
#include <QDir>
#include <QGraphicsScene>
#include <QImage>
#include <QLegend>
#include <QPainter>
#include <QSvgGenerator>

#include "core/input/atomic_file.h"
#include "ui/charts/bit_layout_diagram.h"
#include "ui/charts/chart_view.h"
#include "ui/charts/legend_fit.h"
#include "ui/session/core_errors.h"

namespace paritylab::ui {
namespace {

// The file whole or not at all (a full disk never leaves a truncated chart under its name).
bool writeWhole(const QString& path, const QByteArray& bytes, QString* error) {
  try {
    input::writeFileAtomically(path.toStdString(),
                               std::string_view(bytes.constData(), std::size_t(bytes.size())));
    return true;
  } catch (const input::FileWriteError& e) {
    if (error) *error = ui::errorText(e);
    return false;
  }
}

}  // namespace

std::optional<Exportable> exportableNamed(const std::vector<Exportable>& items,
                                          const QString& name) {
  for (const Exportable& item : items)
    if (item.name == name) return item;
  return std::nullopt;
}

Exportable exportableChart(QChartView* view, const QString& name, QSize size) {
  if (!size.isValid()) size = view->size().expandedTo(QSize(900, 560));
  return {name, size, [view](QPainter& p, const QSize& s) {
            // Qt Charts removes the graphics of a replaced axis with deleteLater(): a chart
            // rebuilt just before an export (a new metric, log axes) would still draw the old
            // axes' grid and labels. Finish those deletions first.
            QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
            // Lay the chart out at the export size and render its scene, without disturbing the
            // view (a hidden view gets no resizeEvent, so resizing the view alone would leave the
            // chart at its default geometry).
            QChart* chart = view->chart();
            QGraphicsScene* scene = view->scene();
            const QSizeF oldSize = chart->size();
            const QPointF oldPos = chart->pos();
            const QRectF oldScene = scene->sceneRect();
            const QRectF target(QPointF(0, 0), QSizeF(s));
            // A legend placed by its width is placed for the export's (and back after).
            const auto* fitted = qobject_cast<const ChartView*>(view);
            const bool fitLegendToo = fitted && fitted->legendFitted();
            const Qt::Alignment oldLegend = chart->legend()->alignment();
            if (fitLegendToo) fitLegend(chart, target.width());
            chart->setPos(0, 0);
            chart->resize(target.size());
            scene->setSceneRect(target);
            scene->render(&p, target, target);
            if (fitLegendToo) chart->legend()->setAlignment(oldLegend);
            chart->resize(oldSize);
            chart->setPos(oldPos);
            scene->setSceneRect(oldScene);
          }};
}

Exportable exportableDiagram(const BitLayoutDiagram* diagram, const QString& name) {
  return {name, diagram->sizeHint(), [diagram](QPainter& p, const QSize&) { diagram->render(p); }};
}

bool exportPng(const Exportable& item, const QString& path, QString* error) {
  constexpr double kScale = 2.0;  // crisp on high-density screens and in slides
  QImage image(item.size * kScale, QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(kScale);
  image.fill(Qt::white);
  {
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::TextAntialiasing);
    item.paint(p, item.size);
  }
  QByteArray png;
  QBuffer buffer(&png);
  buffer.open(QIODevice::WriteOnly);
  if (!image.save(&buffer, "PNG")) {
    if (error) *error = QObject::tr("cannot encode %1 as PNG").arg(path);
    return false;
  }
  return writeWhole(path, png, error);
}

bool exportSvg(const Exportable& item, const QString& path, QString* error) {
  QByteArray text;
  QBuffer buffer(&text);
  buffer.open(QIODevice::WriteOnly);
  QSvgGenerator svg;
  svg.setOutputDevice(&buffer);
  svg.setSize(item.size);
  svg.setViewBox(QRect(QPoint(0, 0), item.size));
  svg.setTitle(item.name);
  svg.setDescription(QObject::tr("ParityLab chart"));
  {
    QPainter p;
    if (!p.begin(&svg)) {
      if (error) *error = QObject::tr("cannot write %1").arg(path);
      return false;
    }
    p.fillRect(QRect(QPoint(0, 0), item.size), Qt::white);
    item.paint(p, item.size);
  }
  return writeWhole(path, text, error);
}

bool exportAll(const std::vector<Exportable>& items, const QString& dir, QStringList* written,
               QString* error) {
  if (!QDir().mkpath(dir)) {
    if (error) *error = QObject::tr("cannot create the folder %1").arg(dir);
    return false;
  }
  for (const Exportable& item : items) {
    const QString stem = QDir(dir).filePath(item.name);
    if (!exportPng(item, stem + QStringLiteral(".png"), error)) return false;
    if (!exportSvg(item, stem + QStringLiteral(".svg"), error)) return false;
    if (written) *written << stem + QStringLiteral(".png") << stem + QStringLiteral(".svg");
  }
  return true;
}

}  // namespace paritylab::ui
