import { describeReadme } from '@toolplane/test-support/readme';

describeReadme(import.meta.url);
