// Runs every generated case through SillyTavern's prepareOpenAIMessages (see run.py).
(async () => {
    const fs = require('fs');
    const cases = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
    const out = [];
    for (const c of cases) {
        oai_settings = c.oai;
        power_user = c.power_user;
        extension_prompts = c.table;
        FIELDS = c.fields;
        promptManager = Object.create(PromptManager.prototype);
        Object.assign(promptManager, {
            serviceSettings: oai_settings, activeCharacter: { id: 100001 }, tokenHandler: { counts: {} },
            configuration: { promptOrder: { strategy: 'global', dummyId: 100001 } },
            render() {}, setChatCompletion() {}, log() {},
        });
        const [chat] = await prepareOpenAIMessages({
            name2, charDescription: c.fields.description, charPersonality: c.fields.personality, Scenario: c.fields.scenario,
            worldInfoBefore: c.wib, worldInfoAfter: c.wia, bias: c.bias, type: c.type, quietPrompt: '', quietImage: null,
            extensionPrompts: extension_prompts, cyclePrompt: c.cycle, systemPromptOverride: c.fields.system,
            jailbreakPromptOverride: c.fields.jailbreak, personaDescription: '',
            messages: [...c.messages].reverse(), messageExamples: setOpenAIMessageExamples(c.examples),
        }, false);
        out.push(chat.map(m => ({ role: m.role, content: m.content, ...(m.name ? { name: m.name } : {}) })));
    }
    fs.writeFileSync(process.argv[3], JSON.stringify(out));
})();
