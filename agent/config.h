/* config.h: the agent's configuration file. One "option: value" per line, the options of the
 * command line without their "--"; repeatable ones (allow, label) as "allow: [a, b]" or as
 * "- item" lines under "allow:"; flags (allow-destructive, plaintext, verbose) as true/false;
 * '#' starts a comment line; values may be quoted '...' or "..." and are taken literally (a
 * Windows path keeps its backslashes). For example (C:\ProgramData\lg\agent.yaml):
 *
 *   controller: tcp://10.0.0.5:5601
 *   name: win-host-1
 *   key: C:\ProgramData\lg\win-host-1.key
 *   controller-key: C:\ProgramData\lg\controller.pub
 *   fio: C:\Program Files\fio\fio.exe
 *   allow:
 *     - D:\lg
 *     - \\nas\bench
 *   log-file: C:\ProgramData\lg\agent.log
 */
#ifndef LG_AGENT_CONFIG_H
#define LG_AGENT_CONFIG_H

#include <stddef.h>

/* Read path into arguments ("--controller", "tcp://...", ...). Caller frees them with
 * lg_agent_config_free. Returns 0, or an error with err naming the file and line. */
int lg_agent_config_args(const char *path, char ***argv, int *argc, char *err, size_t errlen);
void lg_agent_config_free(char **argv, int argc);

#endif
