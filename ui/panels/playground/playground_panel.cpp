#include "ui/panels/playground/playground_panel.h"

#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QTabWidget>
#include <QVBoxLayout>

#include "ui/charts/chart_export.h"
#include "ui/panels/playground/playground_product_view.h"
#include "ui/panels/playground/playground_reduction_view.h"
#include "ui/panels/playground/playground_regression_view.h"

namespace paritylab::ui {
namespace {

bool writeText(const QString& path, const QString& text, QString* error) {
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(text.toUtf8()) < 0 ||
      !file.flush()) {
    if (error) *error = QObject::tr("Cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

}  // namespace

PlaygroundPanel::PlaygroundPanel(QWidget* parent)
    : QWidget(parent),
      sections_(new QTabWidget),
      regression_(new PlaygroundRegressionView),
      reduction_(new PlaygroundReductionView),
      product_(new PlaygroundProductView),
      status_(new QLabel) {
  // In a small window a section scrolls instead of squeezing its table and charts (and its
  // minimum size does not grow the main window); the product table scrolls by itself.
  // The regression and reduction views set their own minimum heights (they rearrange with the
  // width).
  auto scrolled = [](QWidget* view) {
    auto* area = new QScrollArea;
    area->setWidget(view);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    return area;
  };
  // Short titles, so the section tabs fit a 1024-pixel window without scroll arrows.
  sections_->addTab(scrolled(regression_), tr("Regression"));
  sections_->setTabToolTip(0, tr("The regression example, under every backend"));
  sections_->addTab(scrolled(reduction_), tr("Reduction"));
  sections_->setTabToolTip(1, tr("Error against reduction length and order"));
  sections_->addTab(product_, tr("Any product"));
  sections_->setTabToolTip(2, tr("Any product, every backend"));

  auto* exportSection = new QPushButton(tr("Export section…"));
  exportSection->setToolTip(tr("This section's charts/tables as PNG and SVG and its data as CSV"));
  auto* exportAllButton = new QPushButton(tr("Export all…"));
  connect(exportSection, &QPushButton::clicked, this, [this] { exportInteractively(false); });
  connect(exportAllButton, &QPushButton::clicked, this, [this] { exportInteractively(true); });
  status_->setWordWrap(true);
  auto* bar = new QHBoxLayout;
  bar->addWidget(status_, 1);
  bar->addWidget(exportSection);
  bar->addWidget(exportAllButton);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 4, 0, 0);
  layout->addWidget(sections_, 1);
  layout->addLayout(bar);
  status_->setText(
      tr("Same numbers from the command line: paritylab-cli playground "
         "regression | reduction | product"));
}

const QWidget* PlaygroundPanel::currentSection() const {
  const QWidget* current = sections_->currentWidget();
  if (const auto* area = qobject_cast<const QScrollArea*>(current)) current = area->widget();
  return current;
}

std::vector<Exportable> PlaygroundPanel::sectionExportables(const QWidget* section) const {
  if (section == regression_) return regression_->exportables();
  if (section == product_) return product_->exportables();
  if (section != reduction_) return {};
  std::vector<Exportable> items = reduction_->exportables();
  for (Exportable& e : items)
    e.paint = [reduction = reduction_, paint = e.paint](QPainter& p, const QSize& s) {
      if (!reduction->hasRun()) reduction->run();  // not an empty chart
      paint(p, s);
    };
  return items;
}

std::vector<Exportable> PlaygroundPanel::exportables() const {
  std::vector<Exportable> items;
  const std::initializer_list<const QWidget*> sections = {regression_, reduction_, product_};
  for (const QWidget* section : sections)
    for (Exportable& e : sectionExportables(section)) items.push_back(std::move(e));
  return items;
}

std::optional<Exportable> PlaygroundPanel::currentExportable() const {
  const std::vector<Exportable> items = sectionExportables(currentSection());
  if (items.empty()) return std::nullopt;
  if (currentSection() == regression_)
    return exportableNamed(items, QStringLiteral("playground-regression-loss"));
  return items.front();
}

bool PlaygroundPanel::exportTo(const QString& dir, bool allSections, QStringList* written,
                               QString* error) {
  const QWidget* current = currentSection();
  struct Csv {
    QString name, text;
  };
  std::vector<Csv> csvs;
  if (allSections || current == regression_)
    csvs.push_back({QStringLiteral("playground-regression.csv"), regression_->csv()});
  if (allSections || current == reduction_) {
    if (!reduction_->hasRun()) reduction_->run();
    csvs.push_back({QStringLiteral("playground-reduction.csv"), reduction_->csv()});
  }
  if (allSections || current == product_)
    csvs.push_back({QStringLiteral("playground-product.csv"), product_->csv()});
  if (!exportAll(allSections ? exportables() : sectionExportables(current), dir, written, error))
    return false;
  for (const Csv& c : csvs) {
    const QString path = QDir(dir).filePath(c.name);
    if (!writeText(path, c.text, error)) return false;
    if (written) written->append(path);
  }
  return true;
}

void PlaygroundPanel::exportInteractively(bool allSections) {
  const QString dir =
      QFileDialog::getExistingDirectory(this, tr("Export the playground into a folder"));
  if (dir.isEmpty()) return;
  QStringList written;
  QString error;
  if (exportTo(dir, allSections, &written, &error))
    status_->setText(tr("Wrote %1 files into %2").arg(written.size()).arg(dir));
  else
    status_->setText(tr("Export failed: %1").arg(error));
}

}  // namespace paritylab::ui
