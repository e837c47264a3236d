"""Claims to be a model: spotted in a sentence, and cut out of a reply with its quote marks kept."""

from __future__ import annotations

from peargarden.providers._model_claims import claims_to_be_a_model, cut_claims


def test_claims_are_the_models_self_introductions_not_the_word_model() -> None:
    assert claims_to_be_a_model("我是阿里云开发的超大规模语言模型，我叫通义千问。")
    assert claims_to_be_a_model("我是一个AI助手，可以帮你解答问题。")
    assert claims_to_be_a_model("I am an AI language model.")
    assert not claims_to_be_a_model("什么模型？客官说的话，我听不懂。")
    assert not claims_to_be_a_model("我是听雨轩的掌柜，姓青。")
    # Seen on the quality panels: English asked for in Chinese, and the assistant's refusal.
    assert claims_to_be_a_model("I'm a text-based AI designed to assist with answering questions.")
    assert claims_to_be_a_model("我只是一个AI，不能陪你喝酒。") and claims_to_be_a_model("作为一个人工智能，我没有家。")
    assert claims_to_be_a_model("I'm sorry, but I can't assist with that.")
    assert not claims_to_be_a_model("I am Wren, and I keep the shrine. I can assist the healer at dawn.")
    assert not claims_to_be_a_model("作为掌柜，我记得每一位客人。")


def test_the_makers_and_the_models_named_are_claims() -> None:
    assert claims_to_be_a_model("我是来自OpenAI的GPT-4模型。")  # Qwen2.5-1.5B on the panel
    assert claims_to_be_a_model("我只是个ChatGPT那样的聊天机器人。")
    assert claims_to_be_a_model("I am Qwen, created by Alibaba Cloud.")
    assert not claims_to_be_a_model("柜台上放着一只旧算盘，珠子磨得发亮。")
    assert claims_to_be_a_model("我的模型是一个人工智能，我并不具备语言能力。")  # Qwen2.5-0.5B, seed 1


def test_the_assistants_voice_is_a_claim_too_but_a_character_may_refuse_in_its_own() -> None:
    # Qwen2.5-1.5B as 青梧 on the panel, asked when the rain stops and about the old umbrella:
    assert claims_to_be_a_model("抱歉，我无法回答这个问题。")
    assert claims_to_be_a_model("我的角色只是听雨轩的掌柜，没有能力预测未来。")
    assert claims_to_be_a_model("如果你有其他问题，欢迎随时问我！")
    assert claims_to_be_a_model("好，还有空房。请问您有什么需要帮助的吗？")
    assert claims_to_be_a_model("If you have any other questions, feel free to ask.")
    assert claims_to_be_a_model("How can I help you today?")
    assert not claims_to_be_a_model("那把伞的事，我不能说。")
    assert not claims_to_be_a_model("客官还要些什么？热水在后院。")
    assert not claims_to_be_a_model("I can't tell you that, traveller. Not tonight.")


def test_a_claiming_sentence_is_cut_and_the_rest_of_the_reply_kept() -> None:
    assert (
        cut_claims("我是一个由OpenAI开发的AI助手。不过今晚，我只是听雨轩的掌柜。") == "不过今晚，我只是听雨轩的掌柜。"
    )
    assert cut_claims("As an AI language model, I do not sleep. But the rain will stop by morning.") == (
        "But the rain will stop by morning."
    )
    assert cut_claims("*She tilts her head.* I am Qwen, created by Alibaba Cloud. I'm Wren.") == (
        "*She tilts her head.* I'm Wren."
    )
    # A claim in the middle: the sentences around it stay as they were.
    assert cut_claims("“客官说笑了。我是阿里云开发的语言模型！这雨今夜停不了。”") == "“客官说笑了。这雨今夜停不了。”"


def test_the_quote_a_cut_sentence_opened_or_closed_stays() -> None:
    assert cut_claims('"As an AI language model, I cannot. The rain will stop."') == '"The rain will stop."'
    assert cut_claims("“雨停了再走吧。我是一个AI助手。”她说。") == "“雨停了再走吧。”她说。"


def test_a_reply_that_is_all_claim_is_left_with_no_words() -> None:
    assert cut_claims("“我是阿里云开发的超大规模语言模型。”") == ""
    assert cut_claims("I'm a AI model created by OpenAI.") == ""
    assert cut_claims("*She smiles.* I am Qwen, created by Alibaba Cloud.") == "*She smiles.*"


def test_the_offer_of_help_and_the_prompt_read_back_are_claims_but_the_story_s_words_are_not() -> None:
    # Qwen2.5-0.5B as 青梧 on issue 49's panel (seed 1 turn 8, seed 2 turn 7; seed 3 turns 5 and 6):
    assert claims_to_be_a_model("如果需要其他帮助，请随时告诉我。")
    assert claims_to_be_a_model("客官慢走，有事请随时告诉我！")
    assert claims_to_be_a_model("根据设定，每到天亮前和正午各开一班船只。")
    assert claims_to_be_a_model("我在这轮用得上的设定是：听雨轩是栖水小镇上最老一家客栈。")
    assert claims_to_be_a_model("According to the lore, the ferry crosses once a day.")
    assert claims_to_be_a_model("If you need any more help, just say so.")
    # A character's own words about needs, settings and help stay:
    assert not claims_to_be_a_model("客官若需要热水，后院灶上一直温着。")
    assert not claims_to_be_a_model("这桌子的摆设，是我娘当年定下的。")
    assert not claims_to_be_a_model("“帮我把伞拿来，”她对小二说，“客官要走了。”")
    assert not claims_to_be_a_model("If you need a room, there's one upstairs. I'll fetch the key.")
    assert not claims_to_be_a_model("She tells you the old lore of the shrine, as her mother told it.")
