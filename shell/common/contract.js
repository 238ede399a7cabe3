// SPDX-License-Identifier: GPL-2.0-or-later
// The daemon's contract as the shells take it, generated from its Swift
// declarations (Sources/GuidedAccessContract) by scripts/generate-interfaces.
// Do not edit: a test fails when this differs from what the daemon prints.

export var BUS_NAME = "org.guidedaccess.GuidedAccess1";
export var OBJECT_PATH = "/org/guidedaccess/GuidedAccess1";
export var INTERFACES = {"session": "org.guidedaccess.GuidedAccess1", "features": "org.guidedaccess.Features1", "restrictions": "org.guidedaccess.Restrictions1", "restriction": "org.guidedaccess.Restriction1"};
export var START_OPTIONS = {"timeLimit": "time-limit", "systemRestrictions": "system-restrictions", "disabledRegions": "disabled-regions", "restrictions": "restrictions", "presentation": "presentation", "autoLock": "auto-lock", "alsoAllowed": "also-allowed", "accessibilityShortcut": "accessibility-shortcut", "features": "features", "interactive": "interactive"};
export var END_OPTIONS = {"passcode": "passcode", "interactive": "interactive"};
export var SESSION_STATE = {"inactive": "inactive", "active": "active", "expired": "expired"};
export var SESSION_MODE = {"guided": "guided", "autonomous": "autonomous", "singleApp": "single-app", "assessment": "assessment"};
export var RESTRICTION_STATE = {"allow": "allow", "deny": "deny"};
export var SYSTEM_RESTRICTION = {"sleepWakeButton": "sleep-wake-button", "volumeButtons": "volume-buttons", "motion": "motion", "keyboards": "keyboards", "touch": "touch", "notifications": "notifications", "appSwitching": "app-switching", "powerMenu": "power-menu"};
export var SYSTEM_RESTRICTIONS = ["sleep-wake-button", "volume-buttons", "motion", "keyboards", "touch", "notifications", "app-switching", "power-menu"];
export var PRESENTATION = {"asIs": "as-is", "maximized": "maximized", "fullscreen": "fullscreen"};
export var PRESENTATIONS = ["as-is", "maximized", "fullscreen"];
export var AUTO_LOCK = {"desktop": -1, "never": 0};
export var CAPABILITY = {"appLock": "app-lock", "disabledRegions": "disabled-regions", "alsoAllowed": "also-allowed", "accessibilityShortcut": "accessibility-shortcut", "assessment": "assessment", "screenCapture": "screen-capture", "clipboard": "clipboard"};
export var ASSESSMENT_OPTIONS = {"participants": "participants", "allowsScreenCapture": "allows-screen-capture", "allowsClipboard": "allows-clipboard", "allowsNotifications": "allows-notifications", "allowsAccessibilitySpeech": "allows-accessibility-speech", "keepAccessibility": "keep-accessibility", "allowsSpellCheck": "allows-spell-check", "timeLimit": "time-limit"};
export var DEFAULT_ACCESSIBILITY_SHORTCUT = ["ScreenReader", "Zoom", "InvertColors", "LargeText", "OnScreenKeyboard"];
