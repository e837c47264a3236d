// Browser state and helpers that SillyTavern's Chat Completion code reads, replaced by fixed values
// (see run.py).  Token counts and macros are made identical on both sides: a token is two UTF-16
// units, and macros are only {{char}}, {{user}}, {{charIfNotGroup}}, {{scenario}}, {{personality}},
// {{original}} and {{lastChatMessage}}.
console.debug = () => {}; console.log = () => {}; console.warn = () => {};
const extension_prompt_types = { NONE: -1, IN_PROMPT: 0, IN_CHAT: 1, BEFORE_PROMPT: 2 };
const extension_prompt_roles = { SYSTEM: 0, USER: 1, ASSISTANT: 2 };
const INJECTION_POSITION = { RELATIVE: 0, ABSOLUTE: 1 };
const MAX_INJECTION_DEPTH = 1000;
const persona_description_positions = { IN_PROMPT: 0, AFTER_CHAR: 1, TOP_AN: 2, BOTTOM_AN: 3, AT_DEPTH: 4, NONE: 9 };
const character_names_behavior = { NONE: -1, DEFAULT: 0, COMPLETION: 1, CONTENT: 2 };
const chat_completion_sources = { OPENROUTER: 'openrouter' };
const system_message_types = { NARRATOR: 'narrator' };
const event_types = {};
const eventSource = { emit: async () => {} };
const toastr = { error() {}, warning() {} };
let openai_messages_count = 0;
let extension_prompts = {}, oai_settings = {}, power_user = {}, selected_group = null, promptManager = null;
const name1 = '小明', name2 = '林月';
let FIELDS = {};
function isImageInliningSupported() { return false; }
function countText(text) { return Math.ceil(text.length / 2); }
const tokenHandler = {
    count(m) {
        let c = 3 + countText(m.role) + countText(m.content || '');
        if (m.name) c += countText(m.name) + 1;
        return c;
    },
};
function substituteParams(content, _n1, _n2, original) {
    if (!content) return '';
    let used = false;
    content = content.replace(/{{original}}/gi, () => {
        if (typeof original !== 'string') return '{{original}}';
        if (used) return '';
        used = true;
        return original;
    });
    return content.replace(/{{charIfNotGroup}}/gi, name2).replace(/{{char}}/gi, name2).replace(/{{user}}/gi, name1)
        .replace(/{{scenario}}/gi, FIELDS.scenario || '').replace(/{{personality}}/gi, FIELDS.personality || '');
}
function substituteParamsExtended(content, extra) {
    return substituteParams(content).replace(/{{lastChatMessage}}/gi, extra.lastChatMessage);
}
