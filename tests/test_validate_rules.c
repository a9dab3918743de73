/*
 * The explanations validate accepts (src/lab/experiment.h, issue 22 item
 * 3), checked over the whole registry on the CPU: every entry names a
 * mechanism, one direction, a bound in (0, 10%] and a control of the form
 * option=value that names one of its experiment's options; and the control
 * is run: the model over the experiment's validate settings holds, for
 * every record the entry covers, the control variant beside it (else the
 * entry could never explain anything). A defect fails the test naming it;
 * cml_explained_defect is also checked on hand-made defective entries.
 */
#include <stdio.h>
#include <string.h>

#include "experiment_test_util.h"
#include "experiments/registry.h"
#include "lab/common.h"
#include "lab/validate.h"

/* Every entry of every row, and those of every experiment: sound. */
static void test_registry_sound(void)
{
    char why[512];
    size_t entries = 0;
    for (size_t i = 0; i < cml_experiment_count(); i++) {
        const cml_experiment *x = cml_experiment_at(i);
        for (size_t k = 0; x->validate && k < x->validate->nexplained; k++, entries++) {
            int bad = cml_explained_defect(x, &x->validate->explained[k], why, sizeof why);
            if (bad)
                fprintf(stderr, "defect: %s\n", why);
            CHECK(!bad);
        }
    }
    size_t n;
    const cml_explained_diff *every = cml_validate_everywhere(&n);
    for (size_t k = 0; k < n; k++, entries++) {
        int bad = cml_explained_defect(NULL, &every[k], why, sizeof why);
        if (bad)
            fprintf(stderr, "defect: %s\n", why);
        CHECK(!bad);
    }
    /* 2 rows' entries and 1 of every experiment (docs/model-evidence.md §4.12
     * lists those that went; §4.5, §4.7 and §4.9 the ones the l1_merge and
     * l1_pooled intervals took over): a row that drops or adds one says so
     * here. */
    CHECK_EQ_U64(entries, 3);
}

/* Each defect is named, one at a time, from a sound entry. */
static void test_defects_named(void)
{
    const cml_explained_diff good = {"x", "dram__bytes", "a mechanism", CML_EXCESS, 0.05,
                                     "§9.9 test", "residency=one"};
    char why[512];
    CHECK(!cml_explained_defect(NULL, &good, why, sizeof why));
    cml_explained_diff e = good;
    e.bound_frac = 0;
    CHECK(cml_explained_defect(NULL, &e, why, sizeof why) && strstr(why, "bound"));
    e.bound_frac = 0.1000001;
    CHECK(cml_explained_defect(NULL, &e, why, sizeof why) && strstr(why, "bound"));
    e.bound_frac = -0.05; /* the old "either direction" */
    CHECK(cml_explained_defect(NULL, &e, why, sizeof why) && strstr(why, "bound"));
    e.bound_frac = 0.10; /* the widest allowed */
    CHECK(!cml_explained_defect(NULL, &e, why, sizeof why));
    e = good;
    e.direction = (cml_explain_direction)0;
    CHECK(cml_explained_defect(NULL, &e, why, sizeof why) && strstr(why, "direction"));
    e.direction = (cml_explain_direction)3; /* both bits: two-sided */
    CHECK(cml_explained_defect(NULL, &e, why, sizeof why) && strstr(why, "direction"));
    e = good;
    e.control = NULL;
    CHECK(cml_explained_defect(NULL, &e, why, sizeof why) && strstr(why, "no control"));
    e.control = "residency";
    CHECK(cml_explained_defect(NULL, &e, why, sizeof why) && strstr(why, "option=value"));
    e.control = "=one";
    CHECK(cml_explained_defect(NULL, &e, why, sizeof why) && strstr(why, "option=value"));
    e.control = "residency=";
    CHECK(cml_explained_defect(NULL, &e, why, sizeof why) && strstr(why, "option=value"));
    e = good;
    e.mechanism = "";
    CHECK(cml_explained_defect(NULL, &e, why, sizeof why) && strstr(why, "mechanism"));
    e = good;
    e.section = NULL;
    CHECK(cml_explained_defect(NULL, &e, why, sizeof why) && strstr(why, "section"));
    /* A control naming no option of the experiment: write-offset has no
     * residency option. */
    const cml_experiment *wo = cml_experiment_find("write-offset");
    CHECK(wo != NULL);
    if (wo) {
        CHECK(cml_explained_defect(wo, &good, why, sizeof why) && strstr(why, "write-offset") &&
              strstr(why, "none of the experiment's options"));
        e = good;
        e.control = "offset=0";
        CHECK(!cml_explained_defect(wo, &e, why, sizeof why));
    }
    CHECK(!strcmp(cml_explain_direction_name(CML_EXCESS), "excess"));
    CHECK(!strcmp(cml_explain_direction_name(CML_DEFICIT), "deficit"));
}

/* Whether r holds a record named `variant`. */
static int has_variant(const cml_results *r, const char *variant)
{
    for (size_t i = 0; i < r->count; i++)
        if (!strcmp(r->items[i].variant, variant))
            return 1;
    return 0;
}

/* The model over an experiment's validate settings: every record an entry
 * covers has its control among them, and some record is covered. */
static void test_controls_run(void)
{
    for (size_t i = 0; i < cml_experiment_count(); i++) {
        const cml_experiment *x = cml_experiment_at(i);
        if (!x->validate || !x->validate->nexplained)
            continue;
        cml_results all;
        cml_results_init(&all);
        for (const char *const *set = x->validate->settings; *set; set++) {
            cml_results r;
            /* the expr row's settings index its built-in set: no --expr */
            CHECK_EQ_I64(run_model(x, *set, &r), CML_OK);
            for (size_t k = 0; k < r.count; k++) {
                cml_record *c = cml_results_add(&all, x->key, r.items[k].variant);
                CHECK(c != NULL);
            }
            cml_results_free(&r);
        }
        for (size_t k = 0; k < x->validate->nexplained; k++) {
            const cml_explained_diff *e = &x->validate->explained[k];
            size_t covered = 0;
            for (size_t j = 0; j < all.count; j++) {
                const char *v = all.items[j].variant;
                char want[sizeof all.items[j].variant + 64];
                if (e->variant_has && !strstr(v, e->variant_has))
                    continue;
                cml_variant_with(v, e->control, want, sizeof want);
                if (!strcmp(want, v))
                    continue; /* the control itself */
                covered++;
                if (!has_variant(&all, want))
                    fprintf(stderr, "%s: %s: control \"%s\" is not run\n", x->key, v, want);
                CHECK(has_variant(&all, want));
            }
            if (!covered)
                fprintf(stderr, "%s: explanation (%s) covers no record\n", x->key,
                        e->variant_has ? e->variant_has : "any");
            CHECK(covered > 0);
        }
        cml_results_free(&all);
    }
}

int main(void)
{
    test_registry_sound();
    test_defects_named();
    test_controls_run();
    return cml_test_summary("test_validate_rules");
}
