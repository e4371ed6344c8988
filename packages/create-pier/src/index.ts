export type { Answers, PackageManager, Template, Transport } from './answers.js';
export { DEFAULTS, PACKAGE_MANAGERS, TEMPLATES, TRANSPORTS } from './answers.js';
export type { CreatePierErrorCode } from './errors.js';
export { CreatePierError } from './errors.js';
export type { CreatedProject, CreateProjectOptions } from './generate.js';
export { createProject } from './generate.js';
