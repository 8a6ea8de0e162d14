// Windows event facts shared by the built-in pipelines, taken from SigmaHQ's tests/thor.yml (the
// logsource → condition table SigmaHQ itself maintains).

export const SYSMON_CHANNEL = 'Microsoft-Windows-Sysmon/Operational';

/** Sysmon event ids per Sigma category (product windows). */
export const SYSMON_CATEGORIES: Readonly<Record<string, readonly number[]>> = {
  process_creation: [1],
  file_change: [2],
  network_connection: [3],
  sysmon_status: [4, 16],
  process_termination: [5],
  driver_load: [6],
  image_load: [7],
  create_remote_thread: [8],
  raw_access_thread: [9],
  process_access: [10],
  file_event: [11],
  registry_event: [12, 13, 14],
  registry_add: [12],
  registry_delete: [12],
  registry_set: [13],
  registry_rename: [14],
  create_stream_hash: [15],
  pipe_created: [17, 18],
  wmi_event: [19, 20, 21],
  dns_query: [22],
  file_delete: [23, 26],
  clipboard_change: [24],
  process_tampering: [25],
  file_delete_detected: [26],
  file_block_executable: [27],
  file_block_shredding: [28],
  file_executable_detected: [29],
  sysmon_error: [255],
};

/** Event log channels per Sigma service (product windows). */
export const SERVICE_CHANNELS: Readonly<Record<string, readonly string[]>> = {
  application: ['Application'],
  security: ['Security'],
  system: ['System'],
  ntlm: ['Microsoft-Windows-NTLM/Operational'],
  sysmon: [SYSMON_CHANNEL],
  powershell: ['Microsoft-Windows-PowerShell/Operational', 'PowerShellCore/Operational'],
  'powershell-classic': ['Windows PowerShell'],
  taskscheduler: ['Microsoft-Windows-TaskScheduler/Operational'],
  wmi: ['Microsoft-Windows-WMI-Activity/Operational'],
  dhcp: ['Microsoft-Windows-DHCP-Server/Operational'],
  'printservice-admin': ['Microsoft-Windows-PrintService/Admin'],
  'printservice-operational': ['Microsoft-Windows-PrintService/Operational'],
  'smbclient-security': ['Microsoft-Windows-SmbClient/Security'],
  'smbclient-connectivity': ['Microsoft-Windows-SmbClient/Connectivity'],
  'smbserver-connectivity': ['Microsoft-Windows-SMBServer/Connectivity'],
  'terminalservices-localsessionmanager': ['Microsoft-Windows-TerminalServices-LocalSessionManager/Operational'],
  'codeintegrity-operational': ['Microsoft-Windows-CodeIntegrity/Operational'],
  applocker: [
    'Microsoft-Windows-AppLocker/MSI and Script',
    'Microsoft-Windows-AppLocker/EXE and DLL',
    'Microsoft-Windows-AppLocker/Packaged app-Deployment',
    'Microsoft-Windows-AppLocker/Packaged app-Execution',
  ],
  'msexchange-management': ['MSExchange Management'],
  windefend: ['Microsoft-Windows-Windows Defender/Operational'],
  'firewall-as': ['Microsoft-Windows-Windows Firewall With Advanced Security/Firewall'],
  'bits-client': ['Microsoft-Windows-Bits-Client/Operational'],
  'security-mitigations': ['Microsoft-Windows-Security-Mitigations/Kernel Mode', 'Microsoft-Windows-Security-Mitigations/User Mode'],
  'diagnosis-scripted': ['Microsoft-Windows-Diagnosis-Scripted/Operational'],
  'shell-core': ['Microsoft-Windows-Shell-Core/Operational'],
  openssh: ['OpenSSH/Operational'],
  ldap: ['Microsoft-Windows-LDAP-Client/Debug'],
  bitlocker: ['Microsoft-Windows-BitLocker/BitLocker Management'],
  vhdmp: ['Microsoft-Windows-VHDMP/Operational'],
  'appxdeployment-server': ['Microsoft-Windows-AppXDeploymentServer/Operational'],
  'lsa-server': ['Microsoft-Windows-LSA/Operational'],
  'appxpackaging-om': ['Microsoft-Windows-AppxPackaging/Operational'],
  'dns-client': ['Microsoft-Windows-DNS Client Events/Operational'],
  'appmodel-runtime': ['Microsoft-Windows-AppModel-Runtime/Admin'],
  capi2: ['Microsoft-Windows-CAPI2/Operational'],
  'certificateservicesclient-lifecycle-system': ['Microsoft-Windows-CertificateServicesClient-Lifecycle-System/Operational'],
  'kernel-shimengine': ['Microsoft-Windows-Kernel-ShimEngine/Operational', 'Microsoft-Windows-Kernel-ShimEngine/Diagnostic'],
  'application-experience': [
    'Microsoft-Windows-Application-Experience/Program-Telemetry',
    'Microsoft-Windows-Application-Experience/Program-Compatibility-Assistant',
  ],
  ntfs: ['Microsoft-Windows-Ntfs/Operational'],
  'hyper-v-worker': ['Microsoft-Windows-Hyper-V-Worker'],
  'kernel-event-tracing': ['Microsoft-Windows-Kernel-EventTracing'],
  sense: ['Microsoft-Windows-SENSE/Operational'],
  'servicebus-client': ['Microsoft-ServiceBus-Client/Admin', 'Microsoft-ServiceBus-Client/Operational'],
  'iis-configuration': ['Microsoft-IIS-Configuration/Operational'],
};

/** Security/PowerShell/Defender categories with their event ids, the service they belong to and renames. */
export interface CategoryFacts {
  readonly eventIds: readonly number[];
  readonly service: string;
  readonly fieldMapping?: Readonly<Record<string, string>>;
}

export const AUDIT_CATEGORIES: Readonly<Record<string, CategoryFacts>> = {
  process_creation: { eventIds: [4688], service: 'security', fieldMapping: { Image: 'NewProcessName', ParentImage: 'ParentProcessName' } },
  ps_module: { eventIds: [4103], service: 'powershell' },
  ps_script: { eventIds: [4104], service: 'powershell' },
  ps_classic_start: { eventIds: [400], service: 'powershell-classic' },
  ps_classic_provider_start: { eventIds: [600], service: 'powershell-classic' },
  ps_classic_script: { eventIds: [800], service: 'powershell-classic' },
  antivirus: {
    eventIds: [1006, 1007, 1008, 1009, 1010, 1011, 1012, 1017, 1018, 1019, 1115, 1116],
    service: 'windefend',
    fieldMapping: { Signature: 'ThreatName', Filename: 'Path' },
  },
};
