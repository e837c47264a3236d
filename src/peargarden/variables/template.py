"""MVU's ``applyTemplate``: a schema's template filled into a value a command adds.

The value wins over the template.  Object into object: a deep merge over the template.  Array
into array: concatenated (``concatTemplateArray``, the default) or merged by index.  A primitive
with an array template becomes ``[value, ...template]`` unless ``strictTemplate`` forbids it.
Mismatched kinds (object value, array template) leave the value as it is.
"""

from __future__ import annotations

from typing import Any

from peargarden.variables import lodash
from peargarden.variables.jsvalues import clone, truthy


def apply_template(value: Any, template: Any, strict_array_cast: bool = False, array_merge_concat: bool = True) -> Any:
    """The value a new element gets once ``template`` is applied."""
    if not truthy(template):
        return value
    value_is_object = isinstance(value, dict)
    value_is_array = isinstance(value, list)
    template_is_array = isinstance(template, list)
    if value_is_object and not template_is_array:
        return lodash.merge({}, clone(template), value)
    if value_is_array and template_is_array:
        if array_merge_concat:
            return [*value, *template]
        return lodash.merge([], clone(template), value)
    if ((value_is_object or value_is_array) and template_is_array != value_is_array) or (
        not value_is_object and not value_is_array and isinstance(template, dict)
    ):
        return value
    if not value_is_object and not value_is_array and template_is_array:
        if strict_array_cast:
            return value
        if array_merge_concat:
            return [value, *template]
        return lodash.merge([], clone(template), [value])
    return value
