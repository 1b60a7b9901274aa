#include "ui/session/spec_description.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <exception>

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
  try {  // the chaos floor's runs are in the table: say where they come from
    const study::StudySpec spec = study::parseStudySpec(json.toStdString());
    if (spec.chaosFloor)
      backendList += QObject::tr(" + the chaos floor of %1")
                         .arg(QString::fromStdString(spec.chaosFloor->reference));
  } catch (const std::exception&) {
    // An invalid spec: its problems are shown elsewhere; the description stays what it says.
  }
  const QJsonValue seeds = o.value(QStringLiteral("seeds"));
  const int nSeeds = seeds.isArray()       ? static_cast<int>(seeds.toArray().size())
                     : seeds.isUndefined() ? 3
                                           : seeds.toInt();
  const QJsonValue dataset = o.value(QStringLiteral("dataset"));
  const QString datasetName = dataset.isString() ? dataset.toString()
                                                 : dataset.toObject()
                                                       .value(QStringLiteral("source"))
                                                       .toString(QStringLiteral("fashion-mnist"));
  const int epochs = o.value(QStringLiteral("epochs")).toInt(2);
  const qint64 steps = o.value(QStringLiteral("steps")).toInteger(0);  // instead of epochs
  const QString length =
      steps > 0     ? (steps == 1 ? QObject::tr("1 step") : QObject::tr("%1 steps").arg(steps))
      : epochs == 1 ? QObject::tr("1 epoch")
                    : QObject::tr("%1 epochs").arg(epochs);
  return QObject::tr("<b>%1</b> — %2 on %3 · %4 · %5 · %6")
      .arg(name->toHtmlEscaped(),
           o.value(QStringLiteral("model")).toString(QStringLiteral("mlp")).toHtmlEscaped(),
           datasetName.toHtmlEscaped(), backendList.toHtmlEscaped(),
           nSeeds == 1 ? QObject::tr("1 seed") : QObject::tr("%1 seeds").arg(nSeeds), length);
}

}  // namespace paritylab::ui
