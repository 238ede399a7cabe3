// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The structs the Guided Access D-Bus interfaces carry, for QtDBus.
 *
 * qdbusxml2cpp takes these names from the interface XML
 * (org.qtproject.QtDBus.QtTypeName annotations) but does not declare them:
 * include this header in the generated proxies (qdbusxml2cpp -i
 * guidedaccesstypes.h) and call registerGuidedAccessTypes() once, before
 * the first call, so QtDBus can marshal them. Copy it into your project.
 *
 *   (sss)     GuidedAccessRestrictionEntry  Restrictions1.Register
 *   (sssssb)  GuidedAccessRestrictionRow    Restrictions1.List
 *   (iiii)    GuidedAccessRegion            GuidedAccess1.DisabledRegions
 *
 * The dictionaries are Qt's own: a{sv} QVariantMap (QtDBus knows it),
 * a{ss} QMap<QString,QString>, a{sas} QMap<QString,QStringList> (registered
 * below).
 */
#ifndef GUIDEDACCESSTYPES_H
#define GUIDEDACCESSTYPES_H

#include <QtCore/QList>
#include <QtCore/QMap>
#include <QtCore/QMetaType>
#include <QtCore/QString>
#include <QtCore/QStringList>
#include <QtDBus/QDBusArgument>
#include <QtDBus/QDBusMetaType>

/* One restriction an app registers: identifier, short text, detail text. */
struct GuidedAccessRestrictionEntry {
    QString identifier;
    QString text;
    QString detailText;
};

/* One row of List: the entry as stored, its state ("allow" or "deny"), the
 * app that registered it, and whether that app is still connected. */
struct GuidedAccessRestrictionRow {
    QString identifier;
    QString text;
    QString detailText;
    QString state;
    QString app;
    bool registered = false;
};

/* A screen rectangle where input is ignored during a session, in pixels. */
struct GuidedAccessRegion {
    int x = 0;
    int y = 0;
    int width = 0;
    int height = 0;
};

Q_DECLARE_METATYPE(GuidedAccessRestrictionEntry)
Q_DECLARE_METATYPE(GuidedAccessRestrictionRow)
Q_DECLARE_METATYPE(GuidedAccessRegion)

inline QDBusArgument &operator<<(QDBusArgument &argument, const GuidedAccessRestrictionEntry &entry)
{
    argument.beginStructure();
    argument << entry.identifier << entry.text << entry.detailText;
    argument.endStructure();
    return argument;
}

inline const QDBusArgument &operator>>(const QDBusArgument &argument, GuidedAccessRestrictionEntry &entry)
{
    argument.beginStructure();
    argument >> entry.identifier >> entry.text >> entry.detailText;
    argument.endStructure();
    return argument;
}

inline QDBusArgument &operator<<(QDBusArgument &argument, const GuidedAccessRestrictionRow &row)
{
    argument.beginStructure();
    argument << row.identifier << row.text << row.detailText << row.state << row.app << row.registered;
    argument.endStructure();
    return argument;
}

inline const QDBusArgument &operator>>(const QDBusArgument &argument, GuidedAccessRestrictionRow &row)
{
    argument.beginStructure();
    argument >> row.identifier >> row.text >> row.detailText >> row.state >> row.app >> row.registered;
    argument.endStructure();
    return argument;
}

inline QDBusArgument &operator<<(QDBusArgument &argument, const GuidedAccessRegion &region)
{
    argument.beginStructure();
    argument << region.x << region.y << region.width << region.height;
    argument.endStructure();
    return argument;
}

inline const QDBusArgument &operator>>(const QDBusArgument &argument, GuidedAccessRegion &region)
{
    argument.beginStructure();
    argument >> region.x >> region.y >> region.width >> region.height;
    argument.endStructure();
    return argument;
}

/* Tells QtDBus how to marshal every type above and the lists and maps of
 * them the interfaces use. Call once, before the first call or property read. */
inline void registerGuidedAccessTypes()
{
    qDBusRegisterMetaType<GuidedAccessRestrictionEntry>();
    qDBusRegisterMetaType<QList<GuidedAccessRestrictionEntry>>();
    qDBusRegisterMetaType<GuidedAccessRestrictionRow>();
    qDBusRegisterMetaType<QList<GuidedAccessRestrictionRow>>();
    qDBusRegisterMetaType<GuidedAccessRegion>();
    qDBusRegisterMetaType<QList<GuidedAccessRegion>>();
    qDBusRegisterMetaType<QMap<QString, QString>>();
    qDBusRegisterMetaType<QMap<QString, QStringList>>();
}

#endif
