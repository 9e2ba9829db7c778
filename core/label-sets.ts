// The label sets a new repository can start with (`issue_labels`): the names, colours, descriptions
// and scoping of Gitea's "Default" and "Advanced" sets, which clients see as plain label data.

export interface TemplateLabel {
  name: string;
  color: string;
  description: string;
  exclusive: boolean;
}

const DEFAULT_SET: TemplateLabel[] = [
  { name: "bug", color: '#ee0701', description: "Something is not working", exclusive: false },
  { name: "duplicate", color: '#cccccc', description: "This issue or pull request already exists", exclusive: false },
  { name: "enhancement", color: '#84b6eb', description: "New feature", exclusive: false },
  { name: "help wanted", color: '#128a0c', description: "Need some help", exclusive: false },
  { name: "invalid", color: '#e6e6e6', description: "Something is wrong", exclusive: false },
  { name: "question", color: '#cc317c', description: "More information is needed", exclusive: false },
  { name: "wontfix", color: '#ffffff', description: "This won't be fixed", exclusive: false },
];

const ADVANCED_SET: TemplateLabel[] = [
  { name: "Kind/Bug", color: '#ee0701', description: "Something is not working", exclusive: false },
  { name: "Kind/Feature", color: '#0288d1', description: "New functionality", exclusive: false },
  { name: "Kind/Enhancement", color: '#84b6eb', description: "Improve existing functionality", exclusive: false },
  { name: "Kind/Security", color: '#9c27b0', description: "This is security issue", exclusive: false },
  { name: "Kind/Testing", color: '#795548', description: "Issue or pull request related to testing", exclusive: false },
  { name: "Kind/Documentation", color: '#37474f', description: "Documentation changes", exclusive: false },
  { name: "Compat/Breaking", color: '#c62828', description: "Breaking change that won't be backward compatible", exclusive: false },
  { name: "Reviewed/Duplicate", color: '#616161', description: "This issue or pull request already exists", exclusive: true },
  { name: "Reviewed/Invalid", color: '#546e7a', description: "Invalid issue", exclusive: true },
  { name: "Reviewed/Confirmed", color: '#795548', description: "Issue has been confirmed", exclusive: true },
  { name: "Reviewed/Won't Fix", color: '#eeeeee', description: "This issue won't be fixed", exclusive: true },
  { name: "Status/Need More Info", color: '#424242', description: "Feedback is required to reproduce issue or to continue work", exclusive: true },
  { name: "Status/Blocked", color: '#880e4f', description: "Something is blocking this issue or pull request", exclusive: true },
  { name: "Status/Abandoned", color: '#222222', description: "Somebody has started to work on this but abandoned work", exclusive: true },
  { name: "Priority/Critical", color: '#b71c1c', description: "The priority is critical", exclusive: true },
  { name: "Priority/High", color: '#d32f2f', description: "The priority is high", exclusive: true },
  { name: "Priority/Medium", color: '#e64a19', description: "The priority is medium", exclusive: true },
  { name: "Priority/Low", color: '#4caf50', description: "The priority is low", exclusive: true },
];

export const LABEL_SETS: Record<string, TemplateLabel[]> = { Default: DEFAULT_SET, Advanced: ADVANCED_SET };
