// Chinese by default; an English switch.  Elements carry their English text in data-en; scripts
// use t("中文", "English").  The choice is kept in localStorage.
export function lang() { return localStorage.getItem("pear-lang") === "en" ? "en" : "zh"; }
export function t(zh, en) { return lang() === "en" ? en : zh; }

export function translate(root = document) {
  const english = lang() === "en";
  for (const node of root.querySelectorAll("[data-en]")) {
    if (node.dataset.zh === undefined) node.dataset.zh = node.textContent;
    node.textContent = english ? node.dataset.en : node.dataset.zh;
  }
  for (const node of root.querySelectorAll("[data-en-placeholder]")) {
    if (node.dataset.zhPlaceholder === undefined) node.dataset.zhPlaceholder = node.placeholder;
    node.placeholder = english ? node.dataset.enPlaceholder : node.dataset.zhPlaceholder;
  }
  document.documentElement.lang = english ? "en" : "zh-CN";
  const button = document.getElementById("lang-switch");
  if (button) button.textContent = english ? "中文" : "EN";
}

document.getElementById("lang-switch")?.addEventListener("click", () => {
  localStorage.setItem("pear-lang", lang() === "en" ? "zh" : "en");
  translate();
  document.dispatchEvent(new CustomEvent("pear-lang"));
});
translate();
