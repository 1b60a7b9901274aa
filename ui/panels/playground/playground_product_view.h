#pragma once
// The Playground's "any product, every backend": two small matrices typed or pasted (the jax
// issue 9973 example preloaded), the product under every backend side by side with each element's
// bits, and the elements where backends differ highlighted with their ulp distance.

#include <QWidget>
#include <vector>

#include "core/playground/product_compare.h"
#include "ui/charts/chart_export.h"

class QLabel;
class QPlainTextEdit;
class QTableWidget;

namespace paritylab::ui {

class PlaygroundProductView : public QWidget {
  Q_OBJECT

 public:
  explicit PlaygroundProductView(QWidget* parent = nullptr);

  // Parses A and B and multiplies under every preset. False (message shown, naming the matrix,
  // row and column) on bad input; the previous table stays.
  bool run();
  void loadJaxExample();

  const playground::ProductComparison& comparison() const { return comparison_; }
  QPlainTextEdit* aEdit() const { return aEdit_; }
  QPlainTextEdit* bEdit() const { return bEdit_; }
  QTableWidget* table() const { return table_; }
  QLabel* error() const { return error_; }

  std::vector<Exportable> exportables() const;
  QString csv() const;  // same as `paritylab-cli playground product --csv`

 private:
  void fillTable();

  QPlainTextEdit* aEdit_;
  QPlainTextEdit* bEdit_;
  QLabel* error_;
  QLabel* legend_;
  QTableWidget* table_;
  playground::ProductComparison comparison_;
};

}  // namespace paritylab::ui
