#pragma once
// Writing charts and the bit-layout diagram to PNG (2x pixel ratio) and SVG (QSvgGenerator).

#include <QSize>
#include <QString>
#include <functional>
#include <vector>

class QChartView;
class QPainter;

namespace paritylab::ui {

class BitLayoutDiagram;

// Something that can paint itself at a given logical size.
struct Exportable {
  QString name;  // file stem, e.g. "curves-accuracy"
  QSize size;    // logical pixels
  std::function<void(QPainter&, const QSize&)> paint;
};

Exportable exportableChart(QChartView* view, const QString& name, QSize size = {});
Exportable exportableDiagram(const BitLayoutDiagram* diagram, const QString& name);

// Each returns false and sets *error naming the file when writing fails.
bool exportPng(const Exportable& item, const QString& path, QString* error);
bool exportSvg(const Exportable& item, const QString& path, QString* error);
// Writes <dir>/<name>.png and .svg for every item (creating dir); `written` collects the paths.
bool exportAll(const std::vector<Exportable>& items, const QString& dir, QStringList* written,
               QString* error);

}  // namespace paritylab::ui
