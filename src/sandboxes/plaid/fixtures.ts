/** The sandbox's test banks and the accounts each login holds (docs/providers.md). */
export interface TestBank {
  id: string;
  name: string;
}

export const TEST_BANKS: readonly TestBank[] = [
  { id: 'ins_109508', name: 'First Platypus Bank' },
  { id: 'ins_109509', name: 'First Gingham Credit Union' },
  { id: 'ins_109510', name: 'Tattersall Federal Credit Union' },
  { id: 'ins_109511', name: 'Tartan Bank' },
  { id: 'ins_109512', name: 'Houndstooth Bank' },
];

/** The documented sandbox login; any other is refused as the provider refuses bad credentials. */
export const SANDBOX_USERNAME = 'user_good';
export const SANDBOX_PASSWORD = 'pass_good';

export interface AccountTemplate {
  key: string;
  name: string;
  officialName: string;
  mask: string;
  type: string;
  subtype: string;
}

export const TEST_ACCOUNTS: readonly AccountTemplate[] = [
  { key: 'checking', name: 'Plaid Checking', officialName: 'Plaid Gold Standard 0% Interest Checking', mask: '0000', type: 'depository', subtype: 'checking' },
  { key: 'savings', name: 'Plaid Saving', officialName: 'Plaid Silver Standard 0.1% Interest Saving', mask: '1111', type: 'depository', subtype: 'savings' },
  { key: 'cd', name: 'Plaid CD', officialName: 'Plaid Bronze Standard 0.2% Interest CD', mask: '2222', type: 'depository', subtype: 'cd' },
  { key: 'money_market', name: 'Plaid Money Market', officialName: 'Plaid Platinum Standard 1.85% Interest Money Market', mask: '4444', type: 'depository', subtype: 'money market' },
];

export const bankById = (id: string): TestBank | undefined => TEST_BANKS.find((b) => b.id === id);
