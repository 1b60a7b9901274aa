#include "ui/session/spec_description.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <exception>
#include <optional>

#include "core/study/spec/study_spec.h"

namespace paritylab::ui {

QString describeSpec(const QString& json, QString* name) {
  const QJsonObject o = QJsonDocument::fromJson(json.toUtf8()).object();
  *name = o.value(QStringLiteral("name")).toString(QObject::tr("study"));
  QStringList backends;
  for (const QJsonValue b : o.value(QStringLiteral("backends")).toArray()) {
    backends << (b.isString()
                     ? b.toString()
                     : b.toObject()
                           .value(QStringLiteral("name"))
                           .toString(b.toObject().value(QStringLiteral("preset")).toString()));
  }
  QString backendList = backends.join(QStringLiteral(", "));
  const auto count = [](qint64 n, const QString& one, const QString& many) {
    return n == 1 ? one : many.arg(n);
  };
  std::optional<study::StudySpec> spec;
  try {
    spec = study::parseStudySpec(json.toStdString());
  } catch (const std::exception&) {
    // An invalid spec: its problems are shown elsewhere; the description says what the JSON says.
  }
  if (spec) {  // core's reading, its defaults included
    const study::StudySpec& s = *spec;
    if (!s.sweep.empty()) {
      QStringList fields;
      for (const study::SweepFactor& f : s.sweep) fields << QString::fromStdString(f.field);
      backendList += QObject::tr(" · a sweep of %1 (%2)")
                         .arg(fields.join(QStringLiteral(", ")),
                              count(qint64(study::sweepCellCount(s.sweep)), QObject::tr("1 cell"),
                                    QObject::tr("%1 cells")));
    }
    if (s.chaosFloor)  // the chaos floor's runs are in the table: say where they come from
      backendList += QObject::tr(" + the chaos floor of %1")
                         .arg(QString::fromStdString(s.chaosFloor->reference));
    const QString seeds =
        s.sequential
            ? QObject::tr("at most %1 seeds, sequential").arg(s.sequential->design.maxSeeds)
            : count(qint64(s.seeds.size()), QObject::tr("1 seed"), QObject::tr("%1 seeds"));
    const QString length =
        s.train.steps > 0 ? count(s.train.steps, QObject::tr("1 step"), QObject::tr("%1 steps"))
                          : count(s.train.epochs, QObject::tr("1 epoch"), QObject::tr("%1 epochs"));
    return QObject::tr("<b>%1</b> — %2 on %3 · %4 · %5 · %6")
        .arg(name->toHtmlEscaped(), QString::fromStdString(s.train.model).toHtmlEscaped(),
             QString::fromStdString(s.dataset.source).toHtmlEscaped(), backendList.toHtmlEscaped(),
             seeds, length);
  }
  const QJsonValue seeds = o.value(QStringLiteral("seeds"));
  const QJsonValue dataset = o.value(QStringLiteral("dataset"));
  const QString datasetName = dataset.isString()
                                  ? dataset.toString()
                                  : dataset.toObject().value(QStringLiteral("source")).toString();
  QStringList parts{o.value(QStringLiteral("model")).toString().toHtmlEscaped(),
                    datasetName.toHtmlEscaped(), backendList.toHtmlEscaped()};
  if (seeds.isArray())
    parts << count(seeds.toArray().size(), QObject::tr("1 seed"), QObject::tr("%1 seeds"));
  else if (seeds.isDouble())
    parts << count(seeds.toInteger(), QObject::tr("1 seed"), QObject::tr("%1 seeds"));
  parts.removeAll(QString());
  return QObject::tr("<b>%1</b> — %2")
      .arg(name->toHtmlEscaped(), parts.join(QStringLiteral(" · ")));
}

}  // namespace paritylab::ui
