// Stubs for the browser modules SillyTavern 1.12.6's world-info.js imports (our own code; see run.py).
const noop = () => {};
const STUB = new Proxy(function () {}, { get: (t, p) => (p === Symbol.toPrimitive ? () => '' : STUB), apply: () => STUB, construct: () => STUB });
const $ = STUB; const jQuery = noop; globalThis.toastr = { warning: noop, info: noop, success: noop, error: noop };
let chat_metadata = {}; let this_chid = 0;
let characters = [{ name: '林月', avatar: '林月.png', data: { extensions: {} } }];
const saveSettings = noop, callPopup = noop, getRequestHeaders = () => ({}), saveCharacterDebounced = noop, menu_type = '';
const eventSource = { emit: async () => {}, on: noop }, event_types = {}, saveMetadata = noop, getCurrentChatId = () => 'x';
const extension_prompt_roles = { SYSTEM: 0, USER: 1, ASSISTANT: 2 };
let SUBST = (x) => x; function substituteParams(x) { return SUBST(x); }
let extension_prompts = {};
function getExtensionPromptByName(k) { return k ? substituteParams(extension_prompts[k]?.value) : undefined; }
function debounce(f) { return f; }
const download = noop, initScrollHeight = noop, resetScrollHeight = noop, parseJsonFile = noop, extractDataFromPng = noop, getFileBuffer = noop;
function getCharaFilename() { return characters[this_chid].avatar.replace(/\.[^/.]+$/, ''); }
const getSortableDelay = () => 0, PAGINATION_TEMPLATE = '', navigation_option = {}, waitUntilCondition = noop, isTrueBoolean = () => false;
const setValueByPath = noop, flashHighlight = noop, select2ModifyOptions = noop, getSelect2OptionId = noop, dynamicSelect2DataViaAjax = noop;
const highlightRegex = noop, select2ChoiceClickSubscribe = noop, isFalseBoolean = () => false, getSanitizedFilename = (x) => x, checkOverwriteExistingData = noop, parseStringArray = noop, cancelDebounce = noop;
// Our own versions of the two helpers the scanner needs from utils.js.
const REGEX_SPECIALS = new Set('/-\\^$*+?.()|[]{}'.split(''));
function escapeRegex(text) { return [...text].map(ch => (REGEX_SPECIALS.has(ch) ? '\\' + ch : ch)).join(''); }
// cyrb53 (53-bit string hash over UTF-16 code units), as the entry hash for timed effects.
function getStringHash(text, seed = 0) {
    if (typeof text !== 'string') return 0;
    let a = 0xdeadbeef ^ seed;
    let b = 0x41c6ce57 ^ seed;
    for (const unit of Array.from({ length: text.length }, (_, i) => text.charCodeAt(i))) {
        a = Math.imul(a ^ unit, 2654435761);
        b = Math.imul(b ^ unit, 1597334677);
    }
    const mixA = Math.imul(a ^ (a >>> 16), 2246822507) ^ Math.imul(b ^ (b >>> 13), 3266489909);
    const mixB = Math.imul(b ^ (b >>> 16), 2246822507) ^ Math.imul(mixA ^ (mixA >>> 13), 3266489909);
    return (mixB & 0x1fffff) * 4294967296 + (mixA >>> 0);
}
const extension_settings = { note: { allowWIScan: false } };
let AN_RESULT = null;
function getContext() { return { extensionPrompts: extension_prompts, tagMap: {}, setExtensionPrompt: (key, value) => { AN_RESULT = value; } }; }
const NOTE_MODULE_NAME = '2_floating_prompt', metadata_keys = {}; let shouldWIAddPrompt = true;
const isMobile = () => false, FILTER_TYPES = {}; class FilterHelper { constructor() {} }
async function getTokenCountAsync(s) { if (typeof s !== 'string' || !s.length) return 0; return [...s].length + 6; }
const power_user = {}; const getTagKeyForEntity = () => null; const debounce_timeout = { relaxed: 0 };
let TRANSFORM = (s) => s; function getRegexedString(s) { return TRANSFORM(s); } const regex_placement = { WORLD_INFO: 5 };
const SlashCommandParser = STUB, SlashCommand = STUB, ARGUMENT_TYPE = STUB, SlashCommandArgument = STUB, SlashCommandNamedArgument = STUB;
const SlashCommandEnumValue = STUB, enumTypes = STUB, commonEnumProviders = STUB, enumIcons = STUB, SlashCommandClosure = STUB;
const callGenericPopup = noop, Popup = STUB, POPUP_TYPE = {};
class StructuredCloneMap extends Map { constructor() { super(); } get(k) { return structuredClone(super.get(k)); } }
const renderTemplateAsync = async () => '';
