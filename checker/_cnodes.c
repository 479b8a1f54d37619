/*
 * checker._cnodes: the positioned node tree of checker/yamlload.py, built in C over libyaml.
 *
 * An optional accelerator: a step-for-step port of ``yamlload._parse_py`` (the reference,
 * read it first) that builds the same ``checker.nodes`` objects (Scalar, Mapping, Sequence,
 * Skipped) with the same marks and values, the same duplicate-key, merge-key, null-key and
 * complex-key problems and the same alias limits. What needs Python stays in Python and is
 * called from here: resolving a plain scalar (PyYAML's YAML 1.1 resolvers, through the same
 * cache), constructing explicitly tagged scalars, and every problem's message.
 *
 * ``parse`` returns None instead of a result whenever libyaml reports an error or the nesting
 * limit is reached: the vendored libyaml and the one in PyYAML's wheel are not the same
 * release, and their error texts and the place where their own nesting limit stops may differ,
 * so the caller parses such a file (rare: a broken one) with the pure path, which decides.
 *
 * Nodes are made without running their Python __init__: the object is allocated by its type
 * and the __slots__ are filled through the member descriptors' offsets, read once at setup
 * (``setup`` refuses classes whose slots are not plain object members, and the accelerator is
 * then not used).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <string.h>
#include <limits.h>

#include "yaml.h"

/* ---- set up from Python (yamlload._accelerator) ---- */

static PyTypeObject *T_Scalar, *T_Mapping, *T_Sequence, *T_Skipped;
static Py_ssize_t O_line, O_col;                      /* Node */
static Py_ssize_t O_value, O_raw, O_style, O_tag;     /* Scalar */
static Py_ssize_t O_pairs, O_index;                   /* Mapping */
static Py_ssize_t O_items;                            /* Sequence */
static Py_ssize_t O_shape;                            /* Skipped */

static PyObject *plain_cache;        /* dict: plain text -> (tag, value) (yamlload._plain_cache) */
static Py_ssize_t plain_cache_max;
static PyObject *resolve_plain;      /* yamlload.resolve_plain */
static PyObject *construct;          /* yamlload._construct */
static PyObject *f_dup_key, *f_bad_merge, *f_collection_key, *f_null_key, *f_no_anchor, *f_alias_bomb;
static unsigned char resolver_first[128];  /* ASCII first characters some implicit resolver has */
static int resolver_empty;           /* the empty text has resolvers */
static int shortcut_ok;              /* no wildcard resolvers and every first character ASCII */

static PyObject *S_STR, *S_MERGE, *S_NULL, *S_YAML_PREFIX;
static PyObject *S_squote, *S_dquote, *S_literal, *S_folded;
static PyObject *S_mapping, *S_sequence, *S_scalar, *S_skipped, *S_seqmaps;
static int ready;

#define SLOT(obj, off) (*(PyObject **)((char *)(obj) + (off)))

static int member_offset(PyTypeObject *t, const char *name, Py_ssize_t *out)
{
    PyObject *d = PyDict_GetItemString(t->tp_dict, name);  /* borrowed */
    if (d == NULL || !PyObject_TypeCheck(d, &PyMemberDescr_Type)) {
        PyErr_Format(PyExc_TypeError, "%s.%s is not a slot", t->tp_name, name);
        return -1;
    }
    PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
    if (m->type != T_OBJECT_EX || (m->flags & READONLY)) {
        PyErr_Format(PyExc_TypeError, "%s.%s is not a plain object slot", t->tp_name, name);
        return -1;
    }
    *out = m->offset;
    return 0;
}

static int slot_of(PyTypeObject *t, const char *name, Py_ssize_t *out)
{
    /* the slot may be declared on a base class (Node's line and col) */
    PyObject *mro = t->tp_mro;
    for (Py_ssize_t i = 0; mro && i < PyTuple_GET_SIZE(mro); i++) {
        PyTypeObject *b = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
        PyObject *d = PyDict_GetItemString(b->tp_dict, name);
        if (d != NULL)
            return member_offset(b, name, out);
    }
    PyErr_Format(PyExc_TypeError, "%s has no slot %s", t->tp_name, name);
    return -1;
}

static int check_class(PyObject *o, PyTypeObject **out)
{
    if (!PyType_Check(o)) {
        PyErr_SetString(PyExc_TypeError, "a node class is expected");
        return -1;
    }
    PyTypeObject *t = (PyTypeObject *)o;
    if (t->tp_dictoffset != 0 || t->tp_alloc == NULL) {
        PyErr_Format(PyExc_TypeError, "%s has a __dict__; its slots cannot be filled directly", t->tp_name);
        return -1;
    }
    Py_INCREF(o);
    *out = t;
    return 0;
}

static PyObject *intern(const char *s)
{
    PyObject *o = PyUnicode_InternFromString(s);
    return o;
}

static PyObject *cn_setup(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"Scalar", "Mapping", "Sequence", "Skipped", "plain_cache", "plain_cache_max",
                            "resolve_plain", "construct", "resolver_first", "wildcard",
                            "dup_key", "bad_merge", "collection_key", "null_key", "no_anchor", "alias_bomb", NULL};
    PyObject *sc, *mp, *sq, *sk, *cache, *rp, *cons, *first, *dk, *bm, *ck, *nk, *na, *ab;
    Py_ssize_t cmax;
    int wildcard;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOO!nOOO!pOOOOOO", names, &sc, &mp, &sq, &sk, &PyDict_Type, &cache,
                                     &cmax, &rp, &cons, &PyFrozenSet_Type, &first, &wildcard, &dk, &bm, &ck, &nk, &na, &ab))
        return NULL;
    ready = 0;
    if (check_class(sc, &T_Scalar) || check_class(mp, &T_Mapping) || check_class(sq, &T_Sequence)
        || check_class(sk, &T_Skipped))
        return NULL;
    if (slot_of(T_Scalar, "line", &O_line) || slot_of(T_Scalar, "col", &O_col)
        || slot_of(T_Scalar, "value", &O_value) || slot_of(T_Scalar, "raw", &O_raw)
        || slot_of(T_Scalar, "style", &O_style) || slot_of(T_Scalar, "tag", &O_tag)
        || slot_of(T_Mapping, "pairs", &O_pairs) || slot_of(T_Mapping, "_index", &O_index)
        || slot_of(T_Sequence, "items", &O_items) || slot_of(T_Skipped, "shape", &O_shape))
        return NULL;
    Py_ssize_t o;
    /* line and col must sit at the same offsets in every node class (they come from Node) */
    PyTypeObject *all[3] = {T_Mapping, T_Sequence, T_Skipped};
    for (int i = 0; i < 3; i++) {
        if (slot_of(all[i], "line", &o) || o != O_line || slot_of(all[i], "col", &o) || o != O_col) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "node classes disagree on where line and col are");
            return NULL;
        }
    }
    Py_INCREF(cache); plain_cache = cache;
    plain_cache_max = cmax;
    Py_INCREF(rp); resolve_plain = rp;
    Py_INCREF(cons); construct = cons;
    Py_INCREF(dk); f_dup_key = dk;
    Py_INCREF(bm); f_bad_merge = bm;
    Py_INCREF(ck); f_collection_key = ck;
    Py_INCREF(nk); f_null_key = nk;
    Py_INCREF(na); f_no_anchor = na;
    Py_INCREF(ab); f_alias_bomb = ab;
    memset(resolver_first, 0, sizeof resolver_first);
    resolver_empty = 0;
    shortcut_ok = !wildcard;
    PyObject *it = PyObject_GetIter(first), *k;
    if (it == NULL)
        return NULL;
    while ((k = PyIter_Next(it)) != NULL) {
        Py_ssize_t n;
        const char *s = PyUnicode_Check(k) ? PyUnicode_AsUTF8AndSize(k, &n) : NULL;
        if (s == NULL) {
            PyErr_Clear();
            shortcut_ok = 0;
        } else if (n == 0) {
            resolver_empty = 1;
        } else if (n == 1 && (unsigned char)s[0] < 128) {
            resolver_first[(unsigned char)s[0]] = 1;
        } else {
            shortcut_ok = 0;
        }
        Py_DECREF(k);
    }
    Py_DECREF(it);
    if (PyErr_Occurred())
        return NULL;
    ready = 1;
    Py_RETURN_NONE;
}

/* ---- nodes ---- */

static Py_ssize_t nodes_built;  /* nodes made by the current parse (under the GIL) */

static PyObject *alloc_node(PyTypeObject *t, long line, long col)
{
    nodes_built++;
    PyObject *o = t->tp_alloc(t, 0);
    if (o == NULL)
        return NULL;
    PyObject *l = PyLong_FromLong(line), *c = PyLong_FromLong(col);
    if (l == NULL || c == NULL) {
        Py_XDECREF(l); Py_XDECREF(c); Py_DECREF(o);
        return NULL;
    }
    SLOT(o, O_line) = l;
    SLOT(o, O_col) = c;
    return o;
}

static PyObject *new_collection(int is_map, long line, long col)
{
    PyObject *o = alloc_node(is_map ? T_Mapping : T_Sequence, line, col);
    if (o == NULL)
        return NULL;
    PyObject *items = PyList_New(0);
    if (items == NULL) { Py_DECREF(o); return NULL; }
    if (is_map) {
        PyObject *index = PyDict_New();
        if (index == NULL) { Py_DECREF(items); Py_DECREF(o); return NULL; }
        SLOT(o, O_pairs) = items;
        SLOT(o, O_index) = index;
    } else {
        SLOT(o, O_items) = items;
    }
    return o;
}

static PyObject *new_skipped(long line, long col, PyObject *shape)
{
    PyObject *o = alloc_node(T_Skipped, line, col);
    if (o == NULL)
        return NULL;
    Py_INCREF(shape);
    SLOT(o, O_shape) = shape;
    return o;
}

/* Mapping.add */
static int mapping_add(PyObject *m, PyObject *key, PyObject *value)
{
    PyObject *pairs = SLOT(m, O_pairs), *index = SLOT(m, O_index);
    PyObject *k;
    if (Py_TYPE(key) == T_Scalar) {
        k = SLOT(key, O_value);
        Py_INCREF(k);
    } else {
        k = PyLong_FromVoidPtr(key);  /* id(key) */
        if (k == NULL)
            return -1;
    }
    PyObject *i = PyLong_FromSsize_t(PyList_GET_SIZE(pairs));
    if (i == NULL) { Py_DECREF(k); return -1; }
    int rc = PyDict_SetItem(index, k, i);
    Py_DECREF(k);
    Py_DECREF(i);
    if (rc < 0)
        return -1;
    PyObject *pair = PyTuple_Pack(2, key, value);
    if (pair == NULL)
        return -1;
    rc = PyList_Append(pairs, pair);
    Py_DECREF(pair);
    return rc;
}

/* yamlload._merge: copy the keys the mapping does not set itself */
static int merge_into(PyObject *target, PyObject *source)
{
    PyObject *sources;
    if (Py_TYPE(source) == T_Sequence) {
        sources = PyList_GetSlice(SLOT(source, O_items), 0, PY_SSIZE_T_MAX);
    } else {
        sources = PyList_New(1);
        if (sources) { Py_INCREF(source); PyList_SET_ITEM(sources, 0, source); }
    }
    if (sources == NULL)
        return -1;
    for (Py_ssize_t s = 0; s < PyList_GET_SIZE(sources); s++) {
        PyObject *src = PyList_GET_ITEM(sources, s);
        if (Py_TYPE(src) != T_Mapping)
            continue;
        PyObject *idx = PyDict_Values(SLOT(src, O_index));  /* in the index's order (items()) */
        if (idx == NULL) { Py_DECREF(sources); return -1; }
        PyObject *pairs = SLOT(src, O_pairs);
        for (Py_ssize_t j = 0; j < PyList_GET_SIZE(idx); j++) {
            Py_ssize_t i = PyLong_AsSsize_t(PyList_GET_ITEM(idx, j));
            if (i < 0 || i >= PyList_GET_SIZE(pairs)) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_IndexError, "mapping index out of range");
                Py_DECREF(idx); Py_DECREF(sources);
                return -1;
            }
            PyObject *pair = PyList_GET_ITEM(pairs, i);
            PyObject *k = PyTuple_GET_ITEM(pair, 0), *v = PyTuple_GET_ITEM(pair, 1);
            if (Py_TYPE(k) != T_Scalar)
                continue;
            PyObject *kv = SLOT(k, O_value);
            if (kv == Py_None)
                continue;
            int has = PyDict_Contains(SLOT(target, O_index), kv);
            if (has < 0 || (!has && mapping_add(target, k, v) < 0)) {
                Py_DECREF(idx); Py_DECREF(sources);
                return -1;
            }
        }
        Py_DECREF(idx);
    }
    Py_DECREF(sources);
    return 0;
}

/* ---- the builder ---- */

enum { K_NONE, K_SCALAR, K_MAPPING, K_SEQUENCE, K_SEQMAPS, K_SKIPPED };

static PyObject *kind_name(int kind)
{
    switch (kind) {
    case K_SCALAR: return S_scalar;
    case K_MAPPING: return S_mapping;
    case K_SEQUENCE: return S_sequence;
    case K_SEQMAPS: return S_seqmaps;
    case K_SKIPPED: return S_skipped;
    default: return Py_None;
    }
}

static int node_kind(PyObject *node)
{
    if (node == NULL) return K_NONE;
    PyTypeObject *t = Py_TYPE(node);
    if (t == T_Scalar) return K_SCALAR;
    if (t == T_Mapping) return K_MAPPING;
    if (t == T_Sequence) return K_SEQUENCE;
    return K_SKIPPED;
}

static char no_key_marker;
#define NO_KEY ((PyObject *)&no_key_marker)

typedef struct {
    long line;
    PyObject *vtext;  /* owned or NULL (None) */
} Entry;

typedef struct {
    PyObject *node;         /* Mapping/Sequence (owned), NULL while skipping */
    int is_map, skip, skip_next, maps_only;
    PyObject *key;          /* NULL: expecting a key; NO_KEY; or the key node (owned) */
    PyObject *keys;         /* dict: key text -> index in ents (maps) */
    Entry *ents;
    Py_ssize_t nents, cap;
    long long weight;
    PyObject *anchor;       /* owned or NULL */
    PyObject *placeholder;  /* owned or NULL */
    Py_ssize_t cur;         /* the entry of the key being read, or -1 */
    PyObject *dup_text;     /* owned or NULL: a repeated key waiting for its value */
    long dup_line, dup_col;
    Py_ssize_t dup_prev;
    int has_merge;
    long merge_line, merge_col;
    int has_start;
    long start_line, start_col;
} Frame;

typedef struct {
    /* a scalar event, when what is attached is a scalar that was not built */
    PyObject *value;  /* borrowed */
    PyObject *tag;    /* borrowed or NULL */
    int implicit0, plain;
    long line, col;
} Sev;

typedef struct {
    PyObject *docs, *problems, *anchors, *root;  /* root: owned or NULL */
    PyObject *skip_keys, *placeholders, *depths;
    Frame *stack;
    Py_ssize_t depth, cap;
    long long alias_nodes, max_alias_nodes;
    PyObject *max_alias_obj;  /* borrowed: the limit as given (for the message) */
    Py_ssize_t max_depth;
} P;

static void frame_clear(Frame *f)
{
    Py_CLEAR(f->node);
    if (f->key != NO_KEY)
        Py_CLEAR(f->key);
    f->key = NULL;
    Py_CLEAR(f->keys);
    for (Py_ssize_t i = 0; i < f->nents; i++)
        Py_CLEAR(f->ents[i].vtext);
    f->nents = 0;
    Py_CLEAR(f->anchor);
    Py_CLEAR(f->placeholder);
    Py_CLEAR(f->dup_text);
}

static int problem(P *p, PyObject *f, const char *fmt, ...)
{
    va_list va;
    va_start(va, fmt);
    PyObject *args = Py_VaBuildValue(fmt, va);
    va_end(va);
    if (args == NULL)
        return -1;
    PyObject *pr = PyObject_CallObject(f, args);
    Py_DECREF(args);
    if (pr == NULL)
        return -1;
    int rc = PyList_Append(p->problems, pr);
    Py_DECREF(pr);
    return rc;
}

static int ustr_eq(PyObject *a, const char *s)
{
    return a != NULL && PyUnicode_CompareWithASCIIString(a, s) == 0;
}

static int str_eq(PyObject *a, PyObject *b)
{
    if (a == NULL || b == NULL)
        return 0;
    if (a == b)
        return 1;
    int r = PyUnicode_Compare(a, b);
    if (r == -1 && PyErr_Occurred())
        PyErr_Clear();
    return r == 0;
}

static int is_null_text(PyObject *s)
{
    return ustr_eq(s, "") || ustr_eq(s, "~") || ustr_eq(s, "null") || ustr_eq(s, "Null") || ustr_eq(s, "NULL");
}

static Py_ssize_t new_entry(Frame *f, long line)
{
    if (f->nents == f->cap) {
        Py_ssize_t cap = f->cap ? f->cap * 2 : 16;
        Entry *e = PyMem_Realloc(f->ents, cap * sizeof(Entry));
        if (e == NULL) { PyErr_NoMemory(); return -1; }
        f->ents = e;
        f->cap = cap;
    }
    f->ents[f->nents].line = line;
    f->ents[f->nents].vtext = NULL;
    return f->nents++;
}

static void set_vtext(Frame *f, PyObject *vtext)
{
    Entry *e = &f->ents[f->cur];
    Py_XINCREF(vtext);
    Py_XSETREF(e->vtext, vtext);
}

/* the key text was read (``frame.keys`` bookkeeping of attach and the fast path) */
static int register_key(P *p, Frame *f, PyObject *text_key, long line, long col, long entry_line)
{
    PyObject *prev = PyDict_GetItemWithError(f->keys, text_key);
    if (prev != NULL) {
        Py_INCREF(text_key);
        Py_XSETREF(f->dup_text, text_key);
        f->dup_line = line;
        f->dup_col = col;
        f->dup_prev = PyLong_AsSsize_t(prev);
    } else {
        if (PyErr_Occurred())
            return -1;
        Py_ssize_t e = new_entry(f, entry_line);
        if (e < 0)
            return -1;
        PyObject *ie = PyLong_FromSsize_t(e);
        if (ie == NULL || PyDict_SetItem(f->keys, text_key, ie) < 0) {
            Py_XDECREF(ie);
            return -1;
        }
        Py_DECREF(ie);
        f->cur = e;
    }
    if (f->skip) {
        f->skip_next = 0;
    } else {
        int in = PySet_Contains(p->skip_keys, text_key);
        if (in < 0)
            return -1;
        f->skip_next = in;
    }
    return 0;
}

/* yamlload._parse_py's attach(): give a finished node (or, when skipping, its weight) to its
 * parent. ``node`` borrowed (NULL for None); ``sev``: the scalar event when a scalar was not
 * built; ``kind``: K_NONE when neither tells; ``has_pos``: (pos_line, pos_col) given. */
static int attach(P *p, Frame *f, PyObject *node, long long weight, Sev *sev, int kind,
                  int has_pos, long pos_line, long pos_col)
{
    if (f == NULL) {
        Py_XINCREF(node);
        Py_XSETREF(p->root, node);
        return 0;
    }
    f->weight += weight;
    if (kind == K_NONE)
        kind = sev != NULL ? K_SCALAR : node_kind(node);
    if (f->is_map) {
        if (f->key == NULL) {
            /* this node is a key */
            PyObject *text_key = NULL;
            long kline = 0, kcol = 0;
            if (sev != NULL) {
                text_key = sev->value;
                kline = sev->line;
                kcol = sev->col;
                int tag_set = sev->tag != NULL && PyUnicode_GET_LENGTH(sev->tag) > 0;
                if (ustr_eq(text_key, "<<") && ((sev->implicit0 && sev->plain) || str_eq(sev->tag, S_MERGE))) {
                    f->has_merge = 1;
                    f->merge_line = sev->line;
                    f->merge_col = sev->col;
                } else if (str_eq(sev->tag, S_NULL)
                           || (!tag_set && sev->implicit0 && sev->plain && is_null_text(text_key))) {
                    if (problem(p, f_null_key, "(ll)", sev->line, sev->col) < 0)
                        return -1;
                }
            } else if (node != NULL && Py_TYPE(node) == T_Scalar) {
                text_key = SLOT(node, O_raw);
                kline = PyLong_AsLong(SLOT(node, O_line));
                kcol = PyLong_AsLong(SLOT(node, O_col));
                if (str_eq(SLOT(node, O_tag), S_MERGE) && SLOT(node, O_style) == Py_None) {
                    f->has_merge = 1;
                    f->merge_line = kline;
                    f->merge_col = kcol;
                } else if (SLOT(node, O_value) == Py_None && str_eq(SLOT(node, O_tag), S_NULL)) {
                    if (problem(p, f_null_key, "(ll)", kline, kcol) < 0)
                        return -1;
                }
            } else if (kind == K_MAPPING || kind == K_SEQUENCE || kind == K_SEQMAPS) {
                long line = 1, col = 1;
                if (node != NULL) {
                    line = PyLong_AsLong(SLOT(node, O_line));
                    col = PyLong_AsLong(SLOT(node, O_col));
                } else if (has_pos) {
                    line = pos_line;
                    col = pos_col;
                }
                if (problem(p, f_collection_key, "(llO)", line, col, kind_name(kind)) < 0)
                    return -1;
            }
            f->cur = -1;
            if (text_key != NULL && !f->has_merge) {  /* merge keys may repeat (go-yaml, yamllint) */
                if (register_key(p, f, text_key, kline, kcol, kline) < 0)
                    return -1;
            } else {
                f->skip_next = 0;
            }
            if (node != NULL) {
                Py_INCREF(node);
                f->key = node;
            } else {
                f->key = NO_KEY;
            }
        } else {
            PyObject *key = f->key;  /* the reference moves here */
            f->key = NULL;
            f->skip_next = 0;
            int rc = 0;
            if (f->has_merge) {
                if (kind != K_MAPPING && kind != K_SEQMAPS && kind != K_NONE)
                    rc = problem(p, f_bad_merge, "(llO)", f->merge_line, f->merge_col, kind_name(kind));
                f->has_merge = 0;
            }
            PyObject *vtext = NULL;
            if (sev != NULL)
                vtext = sev->value;
            else if (node != NULL && Py_TYPE(node) == T_Scalar)
                vtext = SLOT(node, O_raw);
            if (rc == 0 && f->cur >= 0)
                set_vtext(f, vtext);
            if (rc == 0 && f->dup_text != NULL) {
                PyObject *prev_v = f->ents[f->dup_prev].vtext;
                int same = vtext != NULL && prev_v != NULL && str_eq(prev_v, vtext);
                rc = problem(p, f_dup_key, "(OlllO)", f->dup_text, f->dup_line, f->dup_col,
                             f->ents[f->dup_prev].line, same ? Py_True : Py_False);
                Py_CLEAR(f->dup_text);
            }
            if (rc == 0 && f->node != NULL && key != NO_KEY && node != NULL) {
                if (Py_TYPE(key) == T_Scalar && str_eq(SLOT(key, O_tag), S_MERGE) && SLOT(key, O_style) == Py_None)
                    rc = merge_into(f->node, node);
                else
                    rc = mapping_add(f->node, key, node);
            }
            if (key != NO_KEY)
                Py_XDECREF(key);
            return rc;
        }
    } else {
        if (kind != K_NONE && kind != K_MAPPING)
            f->maps_only = 0;
        if (f->node != NULL && node != NULL)
            return PyList_Append(SLOT(f->node, O_items), node);
    }
    return 0;
}

static PyObject *decode_cstr(const unsigned char *s)
{
    if (s == NULL) {
        Py_RETURN_NONE;
    }
    return PyUnicode_DecodeUTF8((const char *)s, (Py_ssize_t)strlen((const char *)s), "strict");
}

static PyObject *style_of(yaml_scalar_style_t st)
{
    switch (st) {
    case YAML_SINGLE_QUOTED_SCALAR_STYLE: return S_squote;
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE: return S_dquote;
    case YAML_LITERAL_SCALAR_STYLE: return S_literal;
    case YAML_FOLDED_SCALAR_STYLE: return S_folded;
    default: return Py_None;  /* plain ('' in PyYAML's events, ``ev.style or None``) */
    }
}

/* yamlload._scalar */
static PyObject *make_scalar(PyObject *value, PyObject *tag, int implicit0, PyObject *style, long line, long col)
{
    PyObject *rtag, *pv;
    if (tag != NULL && PyUnicode_GET_LENGTH(tag) > 0 && !ustr_eq(tag, "!")) {
        int prefixed = PyUnicode_Tailmatch(tag, S_YAML_PREFIX, 0, PY_SSIZE_T_MAX, -1);
        if (prefixed < 0)
            return NULL;
        if (prefixed && !str_eq(tag, S_STR)) {
            pv = PyObject_CallFunctionObjArgs(construct, tag, value, NULL);
            if (pv == NULL)
                return NULL;
        } else {
            Py_INCREF(value);
            pv = value;
        }
        Py_INCREF(tag);
        rtag = tag;
    } else if (implicit0 && style == Py_None) {
        Py_ssize_t n = PyUnicode_GET_LENGTH(value);
        Py_UCS4 c0 = n ? PyUnicode_READ_CHAR(value, 0) : 0;
        if (shortcut_ok && n > 0 && (c0 >= 128 || !resolver_first[c0])) {
            /* resolve_plain: no resolver for this first character -> a string */
            Py_INCREF(S_STR); rtag = S_STR;
            Py_INCREF(value); pv = value;
        } else {
            PyObject *hit = PyDict_GetItemWithError(plain_cache, value);
            if (hit != NULL) {
                Py_INCREF(hit);
            } else {
                if (PyErr_Occurred())
                    return NULL;
                hit = PyObject_CallOneArg(resolve_plain, value);
                if (hit == NULL)
                    return NULL;
                if (PyDict_GET_SIZE(plain_cache) < plain_cache_max && PyDict_SetItem(plain_cache, value, hit) < 0) {
                    Py_DECREF(hit);
                    return NULL;
                }
            }
            if (!PyTuple_Check(hit) || PyTuple_GET_SIZE(hit) != 2) {
                Py_DECREF(hit);
                PyErr_SetString(PyExc_TypeError, "resolve_plain must return (tag, value)");
                return NULL;
            }
            rtag = PyTuple_GET_ITEM(hit, 0);
            pv = PyTuple_GET_ITEM(hit, 1);
            Py_INCREF(rtag);
            Py_INCREF(pv);
            Py_DECREF(hit);
        }
    } else {
        Py_INCREF(S_STR); rtag = S_STR;
        Py_INCREF(value); pv = value;
    }
    PyObject *o = alloc_node(T_Scalar, line, col);
    if (o == NULL) {
        Py_DECREF(rtag); Py_DECREF(pv);
        return NULL;
    }
    Py_INCREF(value);
    Py_INCREF(style);
    SLOT(o, O_value) = pv;
    SLOT(o, O_raw) = value;
    SLOT(o, O_style) = style;
    SLOT(o, O_tag) = rtag;
    return o;
}

static int set_anchor(P *p, PyObject *anchor, PyObject *node, long long weight)
{
    PyObject *t = Py_BuildValue("(OL)", node ? node : Py_None, weight);
    if (t == NULL)
        return -1;
    int rc = PyDict_SetItem(p->anchors, anchor, t);
    Py_DECREF(t);
    return rc;
}

static Frame *push(P *p)
{
    if (p->depth == p->cap) {
        Py_ssize_t cap = p->cap ? p->cap * 2 : 32;
        Frame *s = PyMem_Realloc(p->stack, cap * sizeof(Frame));
        if (s == NULL) { PyErr_NoMemory(); return NULL; }
        memset(s + p->cap, 0, (cap - p->cap) * sizeof(Frame));
        p->stack = s;
        p->cap = cap;
    }
    Frame *f = &p->stack[p->depth++];
    Entry *ents = f->ents;
    Py_ssize_t ecap = f->cap;
    memset(f, 0, sizeof *f);
    f->ents = ents;  /* the entry buffer is kept for the next frame at this depth */
    f->cap = ecap;
    f->cur = -1;
    f->maps_only = 1;
    return f;
}

enum { RC_OK = 0, RC_ERROR = -1, RC_FALLBACK = 1, RC_ABORT = 2 };

static int on_scalar(P *p, yaml_event_t *ev)
{
    Frame *parent = p->depth ? &p->stack[p->depth - 1] : NULL;
    long line = (long)ev->start_mark.line + 1, col = (long)ev->start_mark.column + 1;
    PyObject *value = PyUnicode_DecodeUTF8((const char *)ev->data.scalar.value, (Py_ssize_t)ev->data.scalar.length, "strict");
    if (value == NULL)
        return RC_FALLBACK;  /* not text PyYAML would decode: the pure path decides */
    PyObject *tag = NULL, *anchor = NULL, *node = NULL;
    int rc = RC_ERROR;
    if (ev->data.scalar.tag != NULL && (tag = decode_cstr(ev->data.scalar.tag)) == NULL) {
        rc = RC_FALLBACK;
        goto done;
    }
    if (ev->data.scalar.anchor != NULL && (anchor = decode_cstr(ev->data.scalar.anchor)) == NULL) {
        rc = RC_FALLBACK;
        goto done;
    }
    int has_anchor = anchor != NULL && PyUnicode_GET_LENGTH(anchor) > 0;
    int implicit0 = ev->data.scalar.plain_implicit != 0;
    PyObject *style = style_of(ev->data.scalar.style);
    int plain = style == Py_None;

    if (parent != NULL && parent->node != NULL && !parent->skip_next && !has_anchor) {
        /* the common case, inlined (``_parse_py`` step for step) */
        node = make_scalar(value, tag, implicit0, style, line, col);
        if (node == NULL)
            goto done;
        if (!parent->is_map) {
            parent->weight += 1;
            parent->maps_only = 0;
            rc = PyList_Append(SLOT(parent->node, O_items), node) < 0 ? RC_ERROR : RC_OK;
            goto done;
        }
        PyObject *key = parent->key;
        if (key == NULL) {
            PyObject *text_key = value;
            int known = PyDict_Contains(parent->keys, text_key);
            if (known < 0)
                goto done;
            if (!known && SLOT(node, O_value) != Py_None && !ustr_eq(text_key, "<<")) {
                parent->weight += 1;
                if (register_key(p, parent, text_key, line, col, line) < 0)
                    goto done;
                Py_INCREF(node);
                parent->key = node;
                rc = RC_OK;
                goto done;
            }
        } else if (parent->dup_text == NULL && key != NO_KEY && Py_TYPE(key) == T_Scalar
                   && !(str_eq(SLOT(key, O_tag), S_MERGE) && SLOT(key, O_style) == Py_None)) {
            parent->weight += 1;
            parent->key = NULL;
            if (parent->cur >= 0)
                set_vtext(parent, value);
            int r = mapping_add(parent->node, key, node);
            Py_DECREF(key);
            rc = r < 0 ? RC_ERROR : RC_OK;
            goto done;
        }
        rc = attach(p, parent, node, 1, NULL, K_NONE, 0, 0, 0) < 0 ? RC_ERROR : RC_OK;
        goto done;
    }
    Sev sev = {value, tag, implicit0, plain, line, col};
    int skipping = parent != NULL && (parent->skip || (parent->skip_next && parent->key != NULL));
    if (skipping && !(parent->is_map && parent->key == NULL)) {
        if (parent->skip_next && !parent->skip) {
            node = new_skipped(line, col, S_scalar);
            if (node == NULL)
                goto done;
            if (p->placeholders != NULL && PyDict_GET_SIZE(p->placeholders) > 0 && parent->cur >= 0
                && PyUnicode_GET_LENGTH(value) == 0 && implicit0 && plain) {
                long kl = parent->ents[parent->cur].line;
                PyObject *k = PyLong_FromLong(kl);
                if (k == NULL)
                    goto done;
                PyObject *held = PyDict_GetItemWithError(p->placeholders, k);
                if (held != NULL) {
                    Py_INCREF(held);
                    Py_SETREF(node, held);
                    if (PyDict_DelItem(p->placeholders, k) < 0) { Py_DECREF(k); goto done; }
                } else if (PyErr_Occurred()) {
                    Py_DECREF(k);
                    goto done;
                }
                if (p->depths != NULL) {
                    PyObject *d = PyLong_FromSsize_t(p->depth);
                    if (d == NULL || PyDict_SetItem(p->depths, k, d) < 0) {
                        Py_XDECREF(d); Py_DECREF(k);
                        goto done;
                    }
                    Py_DECREF(d);
                }
                Py_DECREF(k);
            }
        }
        if (has_anchor && set_anchor(p, anchor, node, 1) < 0)
            goto done;
        rc = attach(p, parent, node, 1, &sev, K_NONE, 0, 0, 0) < 0 ? RC_ERROR : RC_OK;
        goto done;
    }
    if (parent != NULL && parent->skip) {
        /* a key inside a skipped mapping: only its text matters (duplicates) */
        rc = attach(p, parent, NULL, 1, &sev, K_NONE, 0, 0, 0) < 0 ? RC_ERROR : RC_OK;
        goto done;
    }
    node = make_scalar(value, tag, implicit0, style, line, col);
    if (node == NULL)
        goto done;
    if (has_anchor && set_anchor(p, anchor, node, 1) < 0)
        goto done;
    rc = attach(p, parent, node, 1, NULL, K_NONE, 0, 0, 0) < 0 ? RC_ERROR : RC_OK;
done:
    Py_XDECREF(node);
    Py_XDECREF(tag);
    Py_XDECREF(anchor);
    Py_DECREF(value);
    return rc;
}

static int on_start(P *p, yaml_event_t *ev, int is_map)
{
    if (p->depth >= p->max_depth)
        return RC_FALLBACK;  /* the nesting limit: the pure path reports it where libyaml's own may stop first */
    const unsigned char *a = is_map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
    PyObject *anchor = NULL;
    if (a != NULL && (anchor = decode_cstr(a)) == NULL)
        return RC_FALLBACK;
    if (anchor != NULL && PyUnicode_GET_LENGTH(anchor) == 0)
        Py_CLEAR(anchor);
    Frame *parent = p->depth ? &p->stack[p->depth - 1] : NULL;
    int skip = parent != NULL && (parent->skip || (parent->skip_next && parent->key != NULL));
    int parent_skip = parent != NULL && parent->skip;
    long line = (long)ev->start_mark.line + 1, col = (long)ev->start_mark.column + 1;
    PyObject *node = NULL, *placeholder = NULL;
    if (skip) {
        if (!parent_skip) {
            /* the placeholder handed to the parent when the subtree ends */
            placeholder = new_skipped(line, col, is_map ? S_mapping : S_sequence);
            if (placeholder == NULL) { Py_XDECREF(anchor); return RC_ERROR; }
        }
    } else {
        node = new_collection(is_map, line, col);
        if (node == NULL) { Py_XDECREF(anchor); return RC_ERROR; }
    }
    Frame *f = push(p);  /* may move the stack: ``parent`` is stale from here */
    if (f == NULL) {
        Py_XDECREF(anchor); Py_XDECREF(node); Py_XDECREF(placeholder);
        return RC_ERROR;
    }
    f->node = node;
    f->is_map = is_map;
    f->skip = skip;
    f->anchor = anchor;
    f->placeholder = placeholder;
    f->weight = 1;
    if (skip) {
        f->has_start = 1;
        f->start_line = line;
        f->start_col = col;
    }
    if (is_map && (f->keys = PyDict_New()) == NULL)
        return RC_ERROR;
    return RC_OK;
}

static int on_end(P *p)
{
    Frame *f = &p->stack[p->depth - 1];
    PyObject *node = f->skip ? f->placeholder : f->node;
    Py_XINCREF(node);
    int kind = f->is_map ? K_MAPPING : (f->maps_only ? K_SEQMAPS : K_SEQUENCE);
    long long weight = f->weight;
    int has_start = f->has_start;
    long sl = f->start_line, sc = f->start_col;
    int rc = 0;
    if (f->anchor != NULL)
        rc = set_anchor(p, f->anchor, node, weight);
    frame_clear(f);
    p->depth--;
    if (rc == 0)
        rc = attach(p, p->depth ? &p->stack[p->depth - 1] : NULL, node, weight, NULL, kind, has_start, sl, sc);
    Py_XDECREF(node);
    return rc < 0 ? RC_ERROR : RC_OK;
}

static int on_alias(P *p, yaml_event_t *ev)
{
    long line = (long)ev->start_mark.line + 1, col = (long)ev->start_mark.column + 1;
    PyObject *name = decode_cstr(ev->data.alias.anchor);
    if (name == NULL)
        return RC_FALLBACK;
    PyObject *target = PyDict_GetItemWithError(p->anchors, name);
    if (target == NULL) {
        int rc = PyErr_Occurred() ? RC_ERROR
                 : (problem(p, f_no_anchor, "(llO)", line, col, name) < 0 ? RC_ERROR : RC_ABORT);
        Py_DECREF(name);
        return rc;
    }
    Py_DECREF(name);
    PyObject *node = PyTuple_GET_ITEM(target, 0);
    if (node == Py_None)
        node = NULL;
    long long weight = PyLong_AsLongLong(PyTuple_GET_ITEM(target, 1));
    int akind = node_kind(node);
    if (weight > LLONG_MAX - p->alias_nodes)
        p->alias_nodes = LLONG_MAX;
    else
        p->alias_nodes += weight;
    if (p->alias_nodes > p->max_alias_nodes)
        return problem(p, f_alias_bomb, "(llO)", line, col, p->max_alias_obj) < 0 ? RC_ERROR : RC_ABORT;
    Frame *parent = p->depth ? &p->stack[p->depth - 1] : NULL;
    PyObject *held = NULL;
    Py_XINCREF(node);
    if (parent != NULL && (parent->skip || (parent->skip_next && parent->key != NULL))) {
        if (parent->skip_next && !parent->skip && node != NULL) {
            int k = node_kind(node);
            held = new_skipped(line, col, k == K_MAPPING ? S_mapping : (k == K_SEQUENCE ? S_sequence : S_scalar));
            if (held == NULL) { Py_DECREF(node); return RC_ERROR; }
        }
        Py_XDECREF(node);
        node = held;
    }
    int rc = attach(p, parent, node, weight, NULL, akind, 1, line, col);
    Py_XDECREF(node);
    return rc < 0 ? RC_ERROR : RC_OK;
}

static long long as_limit(PyObject *o)
{
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow > 0)
        return LLONG_MAX;
    if (overflow < 0)
        return LLONG_MIN;
    return v;
}

static PyObject *cn_parse(PyObject *self, PyObject *args)
{
    PyObject *text, *maxd, *maxa, *skip_keys, *placeholders, *depths;
    if (!PyArg_ParseTuple(args, "UO!O!OOO", &text, &PyLong_Type, &maxd, &PyLong_Type, &maxa, &skip_keys,
                          &placeholders, &depths))
        return NULL;
    if (!ready) {
        PyErr_SetString(PyExc_RuntimeError, "checker._cnodes.setup was not called");
        return NULL;
    }
    if (!PyAnySet_Check(skip_keys)) {
        PyErr_SetString(PyExc_TypeError, "skip_keys must be a set");
        return NULL;
    }
    if ((placeholders != Py_None && !PyDict_Check(placeholders)) || (depths != Py_None && !PyDict_Check(depths))) {
        PyErr_SetString(PyExc_TypeError, "placeholders and depths must be dicts or None");
        return NULL;
    }
    Py_ssize_t size;
    const char *buf = PyUnicode_AsUTF8AndSize(text, &size);
    if (buf == NULL)
        return NULL;
    long long md = as_limit(maxd);
    if (md == -1 && PyErr_Occurred())
        return NULL;
    P p;
    memset(&p, 0, sizeof p);
    nodes_built = 0;
    p.max_depth = md < 0 ? 0 : (md > PY_SSIZE_T_MAX ? PY_SSIZE_T_MAX : (Py_ssize_t)md);
    p.max_alias_nodes = as_limit(maxa);
    p.max_alias_obj = maxa;
    if (p.max_alias_nodes == -1 && PyErr_Occurred())
        return NULL;
    p.skip_keys = skip_keys;
    p.placeholders = placeholders == Py_None ? NULL : placeholders;
    p.depths = depths == Py_None ? NULL : depths;
    p.docs = PyList_New(0);
    p.problems = PyList_New(0);
    p.anchors = PyDict_New();
    PyObject *result = NULL;
    yaml_parser_t parser;
    int parser_ready = 0;
    if (p.docs == NULL || p.problems == NULL || p.anchors == NULL)
        goto out;
    if (!yaml_parser_initialize(&parser)) {
        PyErr_NoMemory();
        goto out;
    }
    parser_ready = 1;
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, (size_t)size);
    int rc = RC_OK;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            if (parser.error == YAML_MEMORY_ERROR) {
                PyErr_NoMemory();
                rc = RC_ERROR;
            } else {
                rc = RC_FALLBACK;  /* a syntax or reader error: the pure path reports it */
            }
            break;
        }
        yaml_event_type_t type = ev.type;
        switch (type) {
        case YAML_SCALAR_EVENT:
            rc = on_scalar(&p, &ev);
            break;
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT:
            rc = on_start(&p, &ev, type == YAML_MAPPING_START_EVENT);
            break;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            rc = p.depth ? on_end(&p) : RC_FALLBACK;
            break;
        case YAML_ALIAS_EVENT:
            rc = on_alias(&p, &ev);
            break;
        case YAML_DOCUMENT_START_EVENT: {
            Py_CLEAR(p.root);
            PyObject *a = PyDict_New();
            if (a == NULL)
                rc = RC_ERROR;
            else
                Py_SETREF(p.anchors, a);
            break;
        }
        case YAML_DOCUMENT_END_EVENT: {
            PyObject *root = p.root;
            if (root != NULL && Py_TYPE(root) == T_Scalar && SLOT(root, O_value) == Py_None
                && PyUnicode_GET_LENGTH(SLOT(root, O_raw)) == 0 && SLOT(root, O_style) == Py_None)
                Py_CLEAR(p.root);  /* a bare '---': an empty document, as Kubernetes tooling reads it */
            if (PyList_Append(p.docs, p.root ? p.root : Py_None) < 0)
                rc = RC_ERROR;
            Py_CLEAR(p.root);
            break;
        }
        default:
            break;
        }
        yaml_event_delete(&ev);
        if (rc != RC_OK || type == YAML_STREAM_END_EVENT)
            break;
    }
    if (rc == RC_OK || rc == RC_ABORT) {
        result = Py_BuildValue("(OOn)", p.docs, p.problems, nodes_built);
    } else if (rc == RC_FALLBACK) {
        if (PyErr_Occurred())
            PyErr_Clear();
        Py_INCREF(Py_None);
        result = Py_None;
    }
out:
    if (parser_ready)
        yaml_parser_delete(&parser);
    for (Py_ssize_t i = 0; i < p.cap; i++) {
        if (i < p.depth)
            frame_clear(&p.stack[i]);
        PyMem_Free(p.stack[i].ents);
    }
    PyMem_Free(p.stack);
    Py_XDECREF(p.root);
    Py_XDECREF(p.docs);
    Py_XDECREF(p.problems);
    Py_XDECREF(p.anchors);
    return result;
}

static PyObject *cn_libyaml_version(PyObject *self, PyObject *unused)
{
    return PyUnicode_FromString(yaml_get_version_string());
}

static PyMethodDef methods[] = {
    {"setup", (PyCFunction)(void (*)(void))cn_setup, METH_VARARGS | METH_KEYWORDS,
     "setup(**classes and helpers of checker.yamlload): must be called once before parse"},
    {"parse", cn_parse, METH_VARARGS,
     "parse(text, max_depth, max_alias_nodes, skip_keys, placeholders, depths) -> (documents, problems, nodes built), "
     "or None when the pure path must decide (a libyaml error, the nesting limit)"},
    {"libyaml_version", cn_libyaml_version, METH_NOARGS, "the vendored libyaml's version"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "checker._cnodes", "The positioned YAML node tree built in C over libyaml.", -1, methods,
};

PyMODINIT_FUNC PyInit__cnodes(void)
{
#define STR_CONST(var, s) if ((var = intern(s)) == NULL) return NULL
    STR_CONST(S_STR, "tag:yaml.org,2002:str");
    STR_CONST(S_MERGE, "tag:yaml.org,2002:merge");
    STR_CONST(S_NULL, "tag:yaml.org,2002:null");
    STR_CONST(S_YAML_PREFIX, "tag:yaml.org,2002:");
    STR_CONST(S_squote, "'");
    STR_CONST(S_dquote, "\"");
    STR_CONST(S_literal, "|");
    STR_CONST(S_folded, ">");
    STR_CONST(S_mapping, "mapping");
    STR_CONST(S_sequence, "sequence");
    STR_CONST(S_scalar, "scalar");
    STR_CONST(S_skipped, "skipped");
    STR_CONST(S_seqmaps, "sequence-of-maps");
#undef STR_CONST
    return PyModule_Create(&module);
}
