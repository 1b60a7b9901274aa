#pragma once
// Writing charts and the bit-layout diagram to PNG (2x pixel ratio) and SVG (QSvgGenerator).

#include <QSize>
#include <QString>
#include <functional>
#include <optional>
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

// What a panel can export, the one list File > Export, Export all and `report --charts` take:
// every chart it can draw now (a chart without data is left out) and the one on screen, which is
// one of them. A chart drawn by changing the panel's options (each curve metric) puts them back.
class ChartExports {
 public:
  virtual std::vector<Exportable> exportables() const = 0;
  virtual std::optional<Exportable> currentExportable() const = 0;

 protected:
  ~ChartExports() = default;
};

// The item of `items` called `name`, if any (a panel's currentExportable from its exportables).
std::optional<Exportable> exportableNamed(const std::vector<Exportable>& items,
                                          const QString& name);

Exportable exportableChart(QChartView* view, const QString& name, QSize size = {});
Exportable exportableDiagram(const BitLayoutDiagram* diagram, const QString& name);

// Each returns false and sets *error naming the file when writing fails.
bool exportPng(const Exportable& item, const QString& path, QString* error);
bool exportSvg(const Exportable& item, const QString& path, QString* error);
// Writes <dir>/<name>.png and .svg for every item (creating dir); `written` collects the paths.
bool exportAll(const std::vector<Exportable>& items, const QString& dir, QStringList* written,
               QString* error);

}  // namespace paritylab::ui
