import { describeRouteGroupSecurity } from '../support/route-security.js';

describeRouteGroupSecurity('alerts');
