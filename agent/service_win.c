/* service_win.c: the Windows service around lg_agent_main. The control manager calls
 * s_service_main on a thread of its own; a stop or shutdown request reaches the agent's loop
 * through lg_agent_stop (a uv_async). The agent logs to its --log-file (a service has no
 * console). */
#include "service.h"

#include <windows.h>

#include <stdio.h>
#include <string.h>

#include "lg_log.h"

static const lg_agent_config_t *s_cfg;
static SERVICE_STATUS_HANDLE s_status_handle;
static SERVICE_STATUS s_status;

static void s_report(DWORD state, DWORD exit_code, DWORD wait_hint)
{
    s_status.dwServiceType = SERVICE_WIN32_OWN_PROCESS;
    s_status.dwCurrentState = state;
    s_status.dwWin32ExitCode = exit_code;
    s_status.dwWaitHint = wait_hint;
    s_status.dwControlsAccepted =
        state == SERVICE_RUNNING ? SERVICE_ACCEPT_STOP | SERVICE_ACCEPT_SHUTDOWN : 0;
    s_status.dwCheckPoint =
        state == SERVICE_RUNNING || state == SERVICE_STOPPED ? 0 : s_status.dwCheckPoint + 1;
    SetServiceStatus(s_status_handle, &s_status);
}

static DWORD WINAPI s_control(DWORD control, DWORD type, LPVOID data, LPVOID context)
{
    (void)type;
    (void)data;
    (void)context;
    switch (control) {
    case SERVICE_CONTROL_STOP:
    case SERVICE_CONTROL_SHUTDOWN:
        lg_info("the service control manager asks us to %s",
                control == SERVICE_CONTROL_STOP ? "stop" : "shut down");
        s_report(SERVICE_STOP_PENDING, NO_ERROR, 20000);
        lg_agent_stop();
        return NO_ERROR;
    case SERVICE_CONTROL_INTERROGATE:
        return NO_ERROR;
    default:
        return ERROR_CALL_NOT_IMPLEMENTED;
    }
}

static void WINAPI s_service_main(DWORD argc, LPSTR *argv)
{
    (void)argc;
    (void)argv;
    s_status_handle = RegisterServiceCtrlHandlerExA(LG_SERVICE_NAME, s_control, NULL);
    if (!s_status_handle) {
        lg_error("could not register with the service control manager (error %lu)",
                 (unsigned long)GetLastError());
        return;
    }
    s_report(SERVICE_START_PENDING, NO_ERROR, 10000);
    s_report(SERVICE_RUNNING, NO_ERROR, 0);
    int rc = lg_agent_main(s_cfg);
    lg_info("service stopped (%d)", rc);
    s_report(SERVICE_STOPPED, rc == 0 ? NO_ERROR : ERROR_SERVICE_SPECIFIC_ERROR, 0);
}

int lg_service_run(const lg_agent_config_t *cfg)
{
    s_cfg = cfg;
    SERVICE_TABLE_ENTRYA table[] = {{(LPSTR)LG_SERVICE_NAME, s_service_main}, {NULL, NULL}};
    if (!StartServiceCtrlDispatcherA(table)) {
        lg_error("--service: not started by the service control manager (error %lu); "
                 "install it with --install-service",
                 (unsigned long)GetLastError());
        return 1;
    }
    return 0;
}

int lg_service_install(const char *config, char *err, size_t errlen)
{
    char exe[MAX_PATH], cmd[2 * MAX_PATH + 64];
    if (!GetModuleFileNameA(NULL, exe, sizeof exe)) {
        snprintf(err, errlen, "cannot tell this program's path (error %lu)",
                 (unsigned long)GetLastError());
        return -1;
    }
    if (strchr(config, '"') || snprintf(cmd, sizeof cmd, "\"%s\" --service --config \"%s\"", exe,
                                        config) >= (int)sizeof cmd) {
        snprintf(err, errlen, "config path \"%s\" cannot be quoted on a command line", config);
        return -1;
    }
    SC_HANDLE scm = OpenSCManagerA(NULL, NULL, SC_MANAGER_CREATE_SERVICE);
    if (!scm) {
        snprintf(err, errlen,
                 "cannot open the service control manager (error %lu): run as an "
                 "administrator",
                 (unsigned long)GetLastError());
        return -1;
    }
    SC_HANDLE svc =
        CreateServiceA(scm, LG_SERVICE_NAME, "lg agent (storage load generator)",
                       SERVICE_ALL_ACCESS, SERVICE_WIN32_OWN_PROCESS, SERVICE_AUTO_START,
                       SERVICE_ERROR_NORMAL, cmd, NULL, NULL, NULL, NULL, NULL);
    if (!svc) {
        DWORD e = GetLastError();
        snprintf(err, errlen, "cannot create the service \"%s\" (error %lu%s)", LG_SERVICE_NAME,
                 (unsigned long)e, e == ERROR_SERVICE_EXISTS ? ": it exists already" : "");
        CloseServiceHandle(scm);
        return -1;
    }
    SERVICE_DESCRIPTIONA d = {(LPSTR) "Runs fio on command of an lg controller (CURVE-"
                                      "authenticated); targets limited by its configuration."};
    ChangeServiceConfig2A(svc, SERVICE_CONFIG_DESCRIPTION, &d);
    CloseServiceHandle(svc);
    CloseServiceHandle(scm);
    return 0;
}

int lg_service_uninstall(char *err, size_t errlen)
{
    SC_HANDLE scm = OpenSCManagerA(NULL, NULL, SC_MANAGER_CONNECT);
    if (!scm) {
        snprintf(err, errlen,
                 "cannot open the service control manager (error %lu): run as an "
                 "administrator",
                 (unsigned long)GetLastError());
        return -1;
    }
    SC_HANDLE svc =
        OpenServiceA(scm, LG_SERVICE_NAME, SERVICE_STOP | SERVICE_QUERY_STATUS | DELETE);
    if (!svc) {
        snprintf(err, errlen, "no service \"%s\" (error %lu)", LG_SERVICE_NAME,
                 (unsigned long)GetLastError());
        CloseServiceHandle(scm);
        return -1;
    }
    SERVICE_STATUS st;
    if (ControlService(svc, SERVICE_CONTROL_STOP, &st)) {
        for (int i = 0;
             i < 300 && QueryServiceStatus(svc, &st) && st.dwCurrentState != SERVICE_STOPPED; i++)
            Sleep(100);
    }
    int rc = 0;
    if (!DeleteService(svc)) {
        snprintf(err, errlen, "cannot delete the service \"%s\" (error %lu)", LG_SERVICE_NAME,
                 (unsigned long)GetLastError());
        rc = -1;
    }
    CloseServiceHandle(svc);
    CloseServiceHandle(scm);
    return rc;
}
