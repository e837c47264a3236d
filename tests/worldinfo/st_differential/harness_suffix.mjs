// Runs checkWorldInfo step by step for one generated case (our own code; see run.py).
console.debug = () => {}; console.log = () => {}; console.warn = () => {};
export async function runCase(c) {
    const results = [];
    let timed = c.timed;
    for (const step of c.steps) {
        const r = await runStep({ ...c, ...step, timed });
        results.push(r);
        timed = r.timed;
    }
    return results;
}
async function runStep(c) {
    worldInfoCache.clear();
    for (const [name, data] of Object.entries(c.books)) worldInfoCache.set(name, data);
    selected_world_info = c.globalSelect; world_info = { globalSelect: c.globalSelect, charLore: [] };
    characters[0].data.extensions.world = c.characterWorld || undefined;
    chat_metadata = { timedWorldInfo: structuredClone(c.timed) };
    if (c.chatWorld) chat_metadata.world_info = c.chatWorld;
    const s = c.settings;
    world_info_depth = s.depth; world_info_budget = s.budget_percent; world_info_budget_cap = s.budget_cap;
    world_info_include_names = s.include_names; world_info_recursive = s.recursive; world_info_case_sensitive = s.case_sensitive;
    world_info_match_whole_words = s.match_whole_words; world_info_min_activations = s.min_activations;
    world_info_min_activations_depth_max = s.min_activations_depth_max; world_info_max_recursion_steps = s.max_recursion_steps;
    world_info_use_group_scoring = s.use_group_scoring; world_info_character_strategy = s.character_strategy;
    extension_prompts = {};
    c.injects.forEach((v, i) => { extension_prompts['inj' + i] = { value: v, scan: true }; });
    extension_prompts[NOTE_MODULE_NAME] = { value: '[作者注]', scan: false };
    AN_RESULT = null;
    let ri = 0; Math.random = () => c.randoms[ri++ % c.randoms.length];
    SUBST = (x) => typeof x === 'string' ? x.replaceAll('{{char}}', '林月') : x;
    const chatForWI = c.messages.map(m => world_info_include_names ? `${m[0]}: ${m[1]}` : m[1]).reverse();
    const r = await checkWorldInfo(chatForWI, c.maxContext, !!c.dry);
    return {
        before: r.worldInfoBefore, after: r.worldInfoAfter,
        em: r.EMEntries.map(e => [e.position === 0 ? 'before' : 'after', e.content]),
        depth: r.WIDepthEntries.map(e => [e.depth ?? null, e.role, e.entries]),
        activated: [...r.allActivatedEntries].map(e => `${e.world}.${e.uid}`),
        timed: chat_metadata.timedWorldInfo,
        rolls: ri,
        an: AN_RESULT ?? '[作者注]',  // no entries: ST returns before wrapping the note
    };
}
export function convertBook(book) {
    // "Import Card Lore" without the editor: ST's convertCharacterBook on a copy, as saved JSON.
    return JSON.parse(JSON.stringify(convertCharacterBook(structuredClone(book))));
}
