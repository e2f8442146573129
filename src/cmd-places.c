/* `places [--json]`: every place as it stands, ready or not and its one next step. */
#include "config.h"

#include <stdio.h>

#include "places/place.h"
#include "src/command.h"
#include "src/base/json.h"
#include "src/base/settings/settings.h"

extern const struct cp_command cp_cmd_places;

static void print_text(json_object *list)
{
    for (size_t i = 0; i < json_object_array_length(list); i++) {
        json_object *p = json_object_array_get_idx(list, i), *ready = NULL;
        json_object_object_get_ex(p, "ready", &ready);
        const char *place = cp_json_str(p, "place");
        const char *next = cp_json_str(p, "next");
        const char *engine = cp_json_str(p, "engine");
        json_object *seals = NULL;
        json_object_object_get_ex(p, "seals", &seals);
        const char *sealing = json_object_get_boolean(seals) ? "seals" : "no seal";
        if (!json_object_get_boolean(ready))
            printf("%-20s %-8s not ready: %s\n", place, sealing, next ? next : "unknown");
        else if (engine != NULL)
            printf("%-20s %-8s ready (%s)\n", place, sealing, engine);
        else
            printf("%-20s %-8s ready\n", place, sealing);
    }
}

static int places_handler(const struct cp_parsed *args, cp_error_t *err)
{
    cleanup_config struct cp_config cfg = {0};
    if (cp_config_load(&cfg, err) < 0)
        return cp_error_code(err);
    cleanup_json json_object *list = json_object_new_array();
    for (size_t i = 0; cp_places[i] != NULL; i++) {
        size_t before = json_object_array_length(list);
        if (cp_places[i]->describe != NULL && cp_places[i]->describe(&cfg, list, err) < 0)
            return cp_error_code(err);
        /* Told for every place, so a caller can tell whether a run there keeps the seal. */
        for (size_t k = before; k < json_object_array_length(list); k++)
            json_object_object_add(json_object_array_get_idx(list, k), "seals",
                                   json_object_new_boolean(cp_places[i]->seals));
    }
    if (cp_arg(args, &cp_cmd_places, "json") != NULL)
        printf("%s\n", json_object_to_json_string_ext(list, JSON_C_TO_STRING_PLAIN |
                                                                JSON_C_TO_STRING_NOSLASHESCAPE));
    else
        print_text(list);
    return 0;
}

static const struct cp_option options[] = {
    {"json", 0, NULL, "one JSON document on standard output"},
    {0},
};

const struct cp_command cp_cmd_places = {
    .name = "places",
    .synopsis = "[--json]",
    .summary = "every place as it stands: ready, or not and its one next step",
    .options = options,
    .handler = places_handler,
    .failure_status = 1,
};
